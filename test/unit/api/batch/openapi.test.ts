// The batch, autoscaling, policy, scheduling and node definitions through discovery and OpenAPI generation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { autoscalingDefinitions, autoscalingResources } from '../../../../src/api/autoscaling/index.js';
import { batchDefinitions, batchResources } from '../../../../src/api/batch/index.js';
import { coreDefinitions } from '../../../../src/api/core/index.js';
import { metaDefinitions } from '../../../../src/api/meta.js';
import { nodeDefinitions, nodeResources } from '../../../../src/api/node/index.js';
import { policyDefinitions, policyResources } from '../../../../src/api/policy/index.js';
import { schedulingDefinitions, schedulingResources } from '../../../../src/api/scheduling/index.js';
import { apiResourceList, groupVersions } from '../../../../src/apiserver/discovery/documents.js';
import { openapiV2 } from '../../../../src/apiserver/openapi/v2.js';
import { openapiV3GroupVersion } from '../../../../src/apiserver/openapi/v3.js';
import { SchemaSet } from '../../../../src/machinery/schema.js';

const resources = [...batchResources, ...autoscalingResources, ...policyResources, ...schedulingResources, ...nodeResources];
const set = new SchemaSet(metaDefinitions, coreDefinitions, batchDefinitions, autoscalingDefinitions, policyDefinitions, schedulingDefinitions, nodeDefinitions);

describe('batch-group definitions in discovery and OpenAPI', () => {
  it('serve autoscaling v2 before v1', () => {
    assert.deepEqual(groupVersions(resources).map((g) => [g.group, g.versions]), [
      ['autoscaling', ['v2', 'v1']],
      ['batch', ['v1']],
      ['policy', ['v1']],
      ['scheduling.k8s.io', ['v1']],
      ['node.k8s.io', ['v1']],
    ]);
  });

  it('list resources with short names, categories and status subresources', () => {
    const batch = apiResourceList(resources, 'batch', 'v1') as unknown as { resources: Array<{ name: string; shortNames?: string[]; categories?: string[] }> };
    assert.deepEqual(batch.resources.map((r) => r.name).sort(), ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']);
    assert.deepEqual(batch.resources.find((r) => r.name === 'cronjobs')?.shortNames, ['cj']);
    assert.deepEqual(batch.resources.find((r) => r.name === 'jobs')?.categories, ['all']);
  });

  it('every referenced definition exists', () => {
    const missing: string[] = [];
    const walk = (sc: unknown): void => {
      if (!sc || typeof sc !== 'object') return;
      const o = sc as Record<string, unknown>;
      if (typeof o.ref === 'string' && !set.has(o.ref)) missing.push(o.ref);
      for (const v of Object.values(o)) if (v && typeof v === 'object') walk(v);
    };
    for (const defs of [batchDefinitions, autoscalingDefinitions, policyDefinitions, schedulingDefinitions, nodeDefinitions]) walk(defs);
    assert.deepEqual([...new Set(missing)], []);
  });

  it('generate OpenAPI v2 and v3 documents', () => {
    assert.ok(openapiV2(resources, set));
    for (const gv of [
      { group: 'batch', version: 'v1', def: 'io.k8s.api.batch.v1.Job' },
      { group: 'autoscaling', version: 'v1', def: 'io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler' },
      { group: 'autoscaling', version: 'v2', def: 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler' },
      { group: 'policy', version: 'v1', def: 'io.k8s.api.policy.v1.PodDisruptionBudget' },
      { group: 'scheduling.k8s.io', version: 'v1', def: 'io.k8s.api.scheduling.v1.PriorityClass' },
      { group: 'node.k8s.io', version: 'v1', def: 'io.k8s.api.node.v1.RuntimeClass' },
    ]) {
      const doc = openapiV3GroupVersion(resources, set, gv) as { components: { schemas: Record<string, unknown> } };
      assert.ok(doc.components.schemas[gv.def], `${gv.group}/${gv.version}`);
    }
  });
});
