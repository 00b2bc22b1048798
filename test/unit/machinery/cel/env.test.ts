import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CelEnv, T, celEqual, escapeName, estimateCost, measured, objectType, toCel, type DeclType } from '../../../../src/machinery/cel/index.js';

function spec(): DeclType {
  const fields = new Map<string, DeclType>([
    ['replicas', T.int()],
    ['name', T.string(63 * 4)],
    ['tags', T.list(T.string(10), 5)],
    ['labels', T.map(T.string())],
    ['when', T.timestamp()],
    ['timeout', T.duration()],
    ['x__dash__y', T.int()],
  ]);
  const json = new Map([...fields.keys()].map((k) => [k, k === 'x__dash__y' ? 'x-y' : k]));
  return objectType(`testType${Math.random().toString(36).slice(2)}`, fields, json);
}

const t = spec();
const env = CelEnv.base().withVariables({ self: t, oldSelf: t });
const compileError = (expr: string) => env.compile(expr).error;

describe('CEL environment: compile errors as cel-go prints them', () => {
  it('undeclared references and undefined fields, with the caret under the token', () => {
    assert.equal(compileError('self.replicas > x'), "ERROR: <input>:1:17: undeclared reference to 'x' (in container '')\n | self.replicas > x\n | ................^");
    assert.equal(compileError('self.nope == 1'), "ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^");
    assert.equal(compileError('has(self.nope)'), "ERROR: <input>:1:9: undefined field 'nope'\n | has(self.nope)\n | ........^");
  });

  it('overloads', () => {
    assert.match(compileError('self.replicas == "a"')!, /^ERROR: <input>:1:15: found no matching overload for '_==_' applied to '\(int, string\)'/);
    assert.match(compileError('self.name.startsWith(1)')!, /found no matching overload for 'startsWith' applied to 'string.\(int\)'/);
    assert.match(compileError('self.tags.size() == "1"')!, /applied to '\(int, string\)'/);
    assert.match(compileError('self.nosuch()')!, /undeclared reference to 'nosuch'/);
    assert.match(compileError('[1, "a"].size() > 0')!, /expected type 'int' but found 'string'/);
    assert.match(compileError('1 +')!, /^ERROR: <input>:1:4: Syntax error: /);
  });

  it('multi-line expressions report the line', () => {
    assert.equal(compileError('self.replicas > 0 &&\n  y'), "ERROR: <input>:2:3: undeclared reference to 'y' (in container '')\n |   y\n | ..^");
  });

  it('escaped property names', () => {
    assert.equal(escapeName('x-y'), 'x__dash__y');
    assert.equal(escapeName('namespace'), '__namespace__');
    assert.equal(escapeName('a.b/c'), 'a__dot__b__slash__c');
    assert.equal(escapeName('a__b'), 'a__underscores__b');
    assert.equal(escapeName('1a'), undefined);
    assert.equal(escapeName('a b'), undefined);
    assert.equal(env.compile('self.x__dash__y == 1').error, undefined);
  });

  it('references: oldSelf shadowed by a comprehension variable does not count', () => {
    assert.equal(env.compile('self.replicas >= oldSelf.replicas').program!.references('oldSelf'), true);
    assert.equal(env.compile('self.tags.all(oldSelf, oldSelf != "")').program!.references('oldSelf'), false);
    assert.equal(env.compile('self.tags.all(x, x != oldSelf.name)').program!.references('oldSelf'), true);
  });
});

describe('CEL values from JSON', () => {
  const v = toCel({ replicas: 3, name: 'a', tags: ['x'], labels: { k: 'v' }, when: '2024-01-01T00:00:00Z', timeout: '1m30s', 'x-y': 1, extra: true }, t);

  it('converts by declared type and evaluates', () => {
    const r = (expr: string) => env.compile(expr).program!.eval({ self: v, oldSelf: v });
    assert.deepEqual(r('self.replicas == 3 && self.tags == ["x"] && self.labels.k == "v" && self.x__dash__y == 1'), { value: true });
    assert.deepEqual(r('self.when < timestamp("2025-01-01T00:00:00Z") && self.timeout == duration("90s")'), { value: true });
    assert.deepEqual(r('self == oldSelf'), { value: true });
    assert.deepEqual(r('has(self.name) && !has(self.labels.nope)'), { value: true });
  });

  it('absent fields are "no such key" at runtime', () => {
    const empty = toCel({}, t);
    assert.deepEqual(env.compile('self.replicas > 1').program!.eval({ self: empty, oldSelf: empty }), { error: 'no such key: replicas' });
  });

  it('equality', () => {
    assert.equal(celEqual(toCel({ a: [1, { b: 2 }] }, T.dyn()), toCel({ a: [1, { b: 2 }] }, T.dyn())), true);
    assert.equal(celEqual(toCel({ a: [1] }, T.dyn()), toCel({ a: [2] }, T.dyn())), false);
  });
});

describe('CEL cost estimates', () => {
  const unbounded = objectType('costType', new Map([['items', T.list(T.string())], ['small', T.list(T.string(10), 10)]]), new Map());
  const cenv = CelEnv.base().withVariables({ self: unbounded });
  const cost = (expr: string, ty: DeclType = unbounded) => estimateCost(cenv.compile(expr).program!.ast, { self: ty });

  it('scales with maxItems and maxLength', () => {
    assert.ok(cost('self.small.all(x, x.size() < 5)') < 100);
    assert.ok(cost('self.items.all(x, x.matches("^[a-z]+$"))') > 10_000_000);
    assert.ok(cost('self.small.all(x, self.small.all(y, x == y))') < cost('self.items.all(x, self.items.all(y, x == y))'));
  });

  it('the runtime bound uses the actual sizes', () => {
    const m = measured(unbounded, { items: ['ab', 'cd'] });
    assert.ok(cost('self.items.all(x, x.matches("^[a-z]+$"))', m) < 100);
  });
});
