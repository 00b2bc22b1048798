import { cluster as harnessCluster, rejection } from '../registry-harness.js';
// Shared fixtures of the workload tests: a strategy driver that mimics the registry (decode defaults, prepare,
// validate), table cells, and an in-memory cluster serving the workload kinds through the real machinery.
import { appsResources } from '../../../../src/api/apps/index.js';
import { coreWorkloadResources } from '../../../../src/api/core/workloads.js';
import { errors, type FieldError } from '../../../../src/machinery/errors.js';
import type { KObject, ResourceDefinition, Strategy } from '../../../../src/api/types.js';

export type Obj = Record<string, unknown>;

/** The driver of one resource's strategy, as the registry runs it. */
export function driver(def: ResourceDefinition) {
  const st = def.strategy as Strategy;
  const kind = def.kind;
  return {
    /** Decode defaults + PrepareForCreate (what a POST stores). */
    created(o: KObject): KObject {
      const c = structuredClone(o);
      st.defaults?.(c);
      st.prepareForCreate?.(c);
      return c;
    },
    /** Field errors of a create, as strings. */
    errors(o: KObject): string[] {
      return (st.validate?.(this.created(o)) ?? []).map(String);
    },
    /** The aggregated 422 message of a create ('' when valid). */
    message(o: KObject): string {
      const c = this.created(o);
      const errs = st.validate?.(c) ?? [];
      return errs.length ? errors.invalid(kind, def.group, c.metadata.name ?? '', errs).message : '';
    },
    /** Field errors of updating stored `old` with `mutate` applied (validate + validateUpdate, as on PUT). */
    updateErrors(old: KObject, mutate: (o: KObject) => void): string[] {
      const next = structuredClone(old);
      mutate(next);
      st.defaults?.(next);
      st.prepareForUpdate?.(next, old);
      const errs: FieldError[] = [...(st.validate?.(next) ?? []), ...(st.validateUpdate?.(next, old) ?? [])];
      return errs.map(String);
    },
    /** A status update of stored `old` to `status`, as the status subresource runs it. */
    statusErrors(old: KObject, status: Obj): string[] {
      const next = { ...structuredClone(old), status: structuredClone(status) };
      st.prepareForStatusUpdate?.(next, old);
      return (st.validateStatusUpdate?.(next, old) ?? []).map(String);
    },
    cells(o: KObject, now = Date.parse('2025-01-01T00:10:00Z')): Record<string, unknown> {
      return Object.fromEntries(def.columns.map((c) => [c.name, c.cell(o, { now })]));
    },
  };
}

export const meta = (name: string, extra: Obj = {}) => ({ name, namespace: 'default', creationTimestamp: '2025-01-01T00:00:00Z', ...extra });

export const template = (labels: Record<string, string> = { app: 'web' }, spec: Obj = {}): Obj => ({
  metadata: { labels },
  spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }], ...spec },
});

/** An in-memory cluster with the default namespace and every workload kind. */
export function cluster() {
  return harnessCluster([...appsResources, ...coreWorkloadResources]);
}

export { rejection };
