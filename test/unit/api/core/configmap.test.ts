import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configMapResource } from '../../../../src/api/core/configmap.js';
import { errors } from '../../../../src/machinery/errors.js';
import type { KObject } from '../../../../src/api/types.js';

const st = configMapResource.strategy;
const cm = (extra: Record<string, unknown>): KObject => ({ metadata: { name: 'cfg', namespace: 'default' }, ...extra });
const msg = (o: KObject, errs: ReturnType<NonNullable<typeof st.validate>>) => errors.invalid('ConfigMap', '', o.metadata.name!, errs).message;

describe('ConfigMap', () => {
  it('has kube names, columns and no generation', () => {
    assert.equal(configMapResource.plural, 'configmaps');
    assert.deepEqual(configMapResource.shortNames, ['cm']);
    assert.equal(configMapResource.hasGeneration, undefined);
    assert.deepEqual(configMapResource.columns.map((c) => c.name), ['Name', 'Data', 'Age']);
  });

  it('validates keys with the Kubernetes message', () => {
    const o = cm({ data: { 'bad key': 'v' } });
    assert.equal(
      msg(o, st.validate!(o)),
      `ConfigMap "cfg" is invalid: data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    );
    const b = cm({ binaryData: { '..x': 'AA==' } });
    assert.equal(st.validate!(b).map(String).join('\n'), `binaryData[..x]: Invalid value: "..x": must not start with '..'`);
  });

  it('rejects a key present in both data and binaryData', () => {
    const o = cm({ data: { k: 'v' }, binaryData: { k: 'AA==' } });
    assert.deepEqual(st.validate!(o).map(String), ['data[k]: Invalid value: "k": duplicate of key present in binaryData']);
  });

  it('limits the total size to 1 MiB, at the empty path', () => {
    const half = 'x'.repeat(512 * 1024);
    const ok = cm({ data: { a: half, b: half } });
    assert.deepEqual(st.validate!(ok), []);
    const o = cm({ data: { a: half, b: half }, binaryData: { c: Buffer.from('y').toString('base64') } });
    assert.equal(msg(o, st.validate!(o)), 'ConfigMap "cfg" is invalid: : Too long: may not be more than 1048576 bytes');
  });

  it('counts UTF-8 bytes of data values', () => {
    const o = cm({ data: { a: 'é'.repeat(512 * 1024 + 1) } });
    assert.equal(st.validate!(o).length, 1);
  });

  it('forbids changes once immutable', () => {
    const old = cm({ immutable: true, data: { a: '1' } });
    assert.deepEqual(st.validateUpdate!(cm({ immutable: true, data: { a: '1' } }), old), []);
    const changed = cm({ data: { a: '2' }, binaryData: { b: 'AA==' } });
    assert.equal(
      msg(changed, st.validateUpdate!(changed, old)),
      'ConfigMap "cfg" is invalid: [immutable: Forbidden: field is immutable when `immutable` is set, data: Forbidden: field is immutable when `immutable` is set, binaryData: Forbidden: field is immutable when `immutable` is set]',
    );
    // Not yet immutable: anything goes, including setting it.
    assert.deepEqual(st.validateUpdate!(cm({ immutable: true, data: { a: '9' } }), cm({ data: { a: '1' } })), []);
  });

  it('drops empty maps in defaults, so {} equals an absent map', () => {
    const o = cm({ data: {}, binaryData: {} });
    st.defaults!(o);
    assert.deepEqual(o, cm({}));
    assert.deepEqual(st.validateUpdate!(o, cm({ immutable: true })).map(String), [
      'immutable: Forbidden: field is immutable when `immutable` is set',
    ]);
  });

  it('prints DATA as the number of data and binaryData keys', () => {
    const o = cm({ data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } });
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    const now = Date.parse('2024-01-01T00:05:00Z');
    assert.deepEqual(configMapResource.columns.map((c) => c.cell(o, { now })), ['cfg', 3, '5m']);
  });
});
