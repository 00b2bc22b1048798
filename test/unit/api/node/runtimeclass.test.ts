import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { nodeDefinitions, nodeResources } from '../../../../src/api/node/index.js';
import { runtimeClassResource, type RuntimeClass } from '../../../../src/api/node/runtimeclass.js';
import { protoTags } from '../../../../src/api/proto-tags/index.js';
import { nodeExtraProtoTags } from '../../../../src/api/proto-tags/node.js';
import { metaDefinitions } from '../../../../src/api/meta.js';
import type { KObject } from '../../../../src/api/types.js';
import { missingProtoTags } from '../../../../src/machinery/protobuf/decode.js';
import { SchemaSet } from '../../../../src/machinery/schema.js';
import { cluster, rejection, type Cluster } from '../batch/helpers.js';

const st = runtimeClassResource.strategy;
const rc = (fields: Record<string, unknown>, name = 'gvisor'): RuntimeClass => ({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name }, ...fields }) as RuntimeClass;

describe('RuntimeClass validation', () => {
  it('requires a DNS-label handler', () => {
    assert.deepEqual(st.validate!(rc({ handler: 'runsc' })), []);
    assert.deepEqual(st.validate!(rc({ handler: 'Run_SC' })).map(String), [
      `handler: Invalid value: "Run_SC": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ]);
  });

  it('validates overhead like container limits and scheduling like pods', () => {
    const errs = st.validate!(rc({
      handler: 'runsc',
      overhead: { podFixed: { cpu: '-1' } },
      scheduling: { nodeSelector: { 'bad key!': 'x' }, tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoSchedule' }, { key: 'a', operator: 'Exists', effect: 'NoSchedule' }] },
    })).map(String);
    assert.equal(errs[0], 'overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0');
    assert.ok(errs[1].startsWith('scheduling.nodeSelector: Invalid value: "bad key!": name part must consist of alphanumeric characters'));
    assert.equal(errs[2], 'scheduling.tolerations[1]: Duplicate value: core.Toleration{Key:"a", Operator:"Exists", Value:"", Effect:"NoSchedule", TolerationSeconds:(*int64)(nil)}');
  });

  it('keeps the handler immutable and rounds overhead quantities', () => {
    assert.deepEqual(st.validateUpdate!(rc({ handler: 'kata' }), rc({ handler: 'runsc' })).map(String), ['handler: Invalid value: "kata": field is immutable']);
    const o = rc({ handler: 'runsc', overhead: { podFixed: { cpu: '250m', memory: '0.5Gi' } } });
    st.defaults!(o);
    assert.deepEqual(o.overhead!.podFixed, { cpu: '250m', memory: '512Mi' });
  });

  it('prints NAME HANDLER AGE', () => {
    const o = rc({ handler: 'runsc' });
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    assert.deepEqual(runtimeClassResource.columns.map((c) => c.name), ['Name', 'Handler', 'Age']);
    assert.deepEqual(runtimeClassResource.columns.map((c) => c.cell(o, { now: Date.parse('2024-01-01T03:00:00Z') })), ['gvisor', 'runsc', '3h']);
  });

  it('has protobuf field numbers for every field', () => {
    assert.deepEqual(missingProtoTags(new SchemaSet(metaDefinitions, nodeDefinitions), { ...protoTags, ...nodeExtraProtoTags }).filter((f) => f.startsWith('io.k8s.api.node.')), []);
  });
});

describe('RuntimeClass through the API', () => {
  let c: Cluster;
  before(async () => {
    c = await cluster(nodeResources);
  });
  after(async () => c.close());

  it('creates, allows create on update and refuses handler changes', async () => {
    const rcs = c.client.resource('node.k8s.io/v1', 'runtimeclasses');
    const o = await rcs.create('', rc({ handler: 'runsc' }) as KObject);
    assert.equal(o.metadata.generation, undefined);
    const viaPut = await rcs.update('', rc({ handler: 'kata' }, 'kata') as KObject);
    assert.equal((viaPut as RuntimeClass).handler, 'kata');
    const changed = structuredClone(o) as RuntimeClass;
    changed.handler = 'other';
    const err = await rejection(rcs.update('', changed));
    assert.equal(err.code, 422);
    assert.equal(err.message, 'RuntimeClass.node.k8s.io "gvisor" is invalid: handler: Invalid value: "other": field is immutable');
  });
});
