// Nesting bounds measured on a body's text before a recursive parser sees it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonDepth, yamlDepthBound } from '../../../src/machinery/nesting.js';
import { MAX_YAML_DEPTH, parseBody } from '../../../src/apiserver/handlers/decode.js';
import { StatusError } from '../../../src/machinery/errors.js';

describe('body nesting', () => {
  it('measures JSON nesting, brackets in strings skipped', () => {
    assert.equal(jsonDepth('{"a":[{"b":"[[[{"}]}'), 3);
    assert.equal(jsonDepth('"x"'), 0);
  });
  it('bounds YAML nesting from above: flow brackets plus block indentation and dashes', () => {
    assert.equal(yamlDepthBound('a: 1\nb: 2\n'), 1);
    assert.equal(yamlDepthBound('a:\n  b:\n    c: [1, {d: 2}]\n'), 5);
    assert.equal(yamlDepthBound('- - - x\n'), 4);
    assert.equal(yamlDepthBound('a: "[[[[" # [[[[\nb: \'{{\'\n'), 1);
    // a real manifest's depth is what it looks like
    const deployment = 'apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: a\n        ports:\n        - containerPort: 80\n';
    const real = yamlDepthBound(deployment);
    assert.ok(real >= 6 && real <= 8, String(real));
  });
  it('refuses YAML nested past the bound with a 400 before parsing, and parses what is below it', () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    assert.throws(() => parseBody('application/yaml', deep(5000)), (e: unknown) => e instanceof StatusError && e.code === 400 && /exceeded max depth of 200/.test(e.message));
    let block = '';
    for (let i = 0; i < 5000; i++) block += `${' '.repeat(i)}k:\n`;
    assert.throws(() => parseBody('application/yaml', block), (e: unknown) => e instanceof StatusError && e.code === 400);
    const ok = parseBody('application/yaml', deep(MAX_YAML_DEPTH - 10)) as unknown[];
    assert.ok(Array.isArray(ok));
  });
});
