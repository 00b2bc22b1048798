// What the resource definitions add around a CRD's conversion webhook: objects in the desired version are not
// sent, versions the CRD lacks are refused, stored objects are defaulted in their own version before converting,
// the answer is pruned to its version's schema.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { versionSchemas, webhookConversion } from '../../../../../src/api/apiextensions/customresource/conversion.js';
import type { KObject } from '../../../../../src/api/types.js';

type Obj = Record<string, any>;
const schemas = versionSchemas([
  { name: 'v1', schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, mode: { type: 'string', default: 'auto' } } } } } } },
  { name: 'v2', schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { dimensions: { type: 'object', properties: { size: { type: 'integer' } } } } } } } } },
  null,
]);
const obj = (apiVersion: string, spec: Obj): KObject => ({ apiVersion, kind: 'Gadget', metadata: { name: 'g' }, spec });

describe('webhook conversion of a definition', () => {
  const sent: Array<{ obj: KObject; to: string }> = [];
  const convert = async (o: KObject, to: string) => {
    sent.push({ obj: structuredClone(o), to });
    return { ...o, apiVersion: to, metadata: { ...o.metadata, extra: 'dropped' }, spec: { dimensions: { size: (o.spec as Obj).size }, stray: true } } as KObject;
  };
  const v2 = webhookConversion(convert, { group: 'ex.test', version: 'v2', storage: 'v1', schemas });

  it('defaults a stored object in its version, converts it and prunes the answer to the target schema', async () => {
    sent.length = 0;
    const out = await v2.fromStored(obj('ex.test/v1', { size: 2 }));
    assert.deepEqual(sent, [{ obj: obj('ex.test/v1', { size: 2, mode: 'auto' }), to: 'ex.test/v2' }]);
    assert.deepEqual(out, { apiVersion: 'ex.test/v2', kind: 'Gadget', metadata: { name: 'g' }, spec: { dimensions: { size: 2 } } });
  });

  it('does not send an object already in the desired version', async () => {
    sent.length = 0;
    const o = obj('ex.test/v2', { dimensions: { size: 1 } });
    assert.equal(await v2.fromStored(o), o);
    const storage = webhookConversion(convert, { group: 'ex.test', version: 'v1', storage: 'v1', schemas });
    const s = obj('ex.test/v1', { size: 1 });
    assert.equal(await storage.toStored(s), s);
    assert.equal(sent.length, 0);
  });

  it('refuses versions the CRD does not have', async () => {
    await assert.rejects(v2.fromStored(obj('ex.test/v9', {})), { code: 500, message: 'request to convert CR from an invalid group/version: ex.test/v9' });
    await assert.rejects(v2.fromStored(obj('other.test/v1', {})), { message: 'request to convert CR from an invalid group/version: other.test/v1' });
  });
});
