import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { leaseResource, coordinationDefinitions } from '../../../src/api/coordination/index.js';
import { coreDefinitions, coreResources } from '../../../src/api/core/index.js';
import { eventsV1Definitions, eventsV1Resource } from '../../../src/api/events/index.js';
import { META, metaDefinitions } from '../../../src/api/meta.js';
import { SchemaSet, type Schema } from '../../../src/machinery/schema.js';

const all = new SchemaSet(metaDefinitions, coreDefinitions, eventsV1Definitions, coordinationDefinitions);

function refs(sc: Schema | undefined, out: string[] = []): string[] {
  if (!sc) return out;
  if (sc.ref) out.push(sc.ref);
  for (const p of Object.values(sc.properties ?? {})) refs(p, out);
  refs(sc.items, out);
  refs(sc.additionalProperties, out);
  return out;
}

describe('definitions', () => {
  it('resolve every ref', () => {
    for (const name of all.names()) for (const r of refs(all.get(name))) assert.ok(all.has(r), `${name} → ${r}`);
  });

  it('describe every property (kubectl explain prints them)', () => {
    for (const name of all.names()) {
      const sc = all.get(name)!;
      assert.ok(sc.description, `${name} has no description`);
      for (const [p, ps] of Object.entries(sc.properties ?? {})) assert.ok(ps.description, `${name}.${p} has no description`);
    }
  });

  it('carry ObjectMeta list semantics', () => {
    const om = all.get(META.ObjectMeta)!.properties!;
    assert.deepEqual([om.finalizers.listType, om.finalizers.patchStrategy], ['set', 'merge']);
    assert.deepEqual([om.ownerReferences.listType, om.ownerReferences.listMapKeys, om.ownerReferences.patchMergeKey], ['map', ['uid'], 'uid']);
    assert.equal(om.managedFields.listType, 'atomic');
    assert.equal(om.labels.mapType, undefined);
    assert.equal(all.get(META.OwnerReference)!.mapType, 'atomic');
    assert.deepEqual(all.get(META.IntOrString), {
      type: 'string',
      format: 'int-or-string',
      intOrString: true,
      description: all.get(META.IntOrString)!.description,
    });
    assert.equal(all.get(META.Time)!.format, 'date-time');
    assert.equal(all.get(META.MicroTime)!.format, 'date-time');
  });

  it('cover each resource schema and list', () => {
    for (const r of [...coreResources, eventsV1Resource, leaseResource]) {
      assert.ok(all.has(r.schemaRef), r.schemaRef);
      assert.ok(all.has(`${r.schemaRef}List`), `${r.schemaRef}List`);
    }
  });
});
