// A registry over an in-memory store with the given resources, and small helpers for the batch-group tests.
import type { KObject } from '../../../../src/api/types.js';

export { cluster, rejection, type Cluster } from '../registry-harness.js';

export const container = { name: 'c', image: 'busybox:1.36' };

export function podTemplate(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { spec: { containers: [container], restartPolicy: 'Never', ...extra } };
}

export function withMeta(o: Record<string, unknown>, name = 'x', namespace = 'default'): KObject {
  return { metadata: { name, namespace }, ...o } as KObject;
}
