// Admission: a named, ordered chain of plugins run after validation and before the write.
import type { KObject } from '../../api/types.js';
import type { RequestContext } from '../context.js';
import type { ResourceStore } from '../registry/store.js';
import type { ApiServerMetrics } from '../../metrics/apiserver.js';
import type { HistogramCell } from '../../metrics/family.js';

export interface AdmissionAttributes {
  ctx: RequestContext;
  store: ResourceStore;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  object: KObject;
  old?: KObject;
  namespace: string;
  /** the subresource written ('status', 'scale', …), '' for the object itself */
  subresource?: string;
  /** the name in the request's path (actions, deletes): a create's name is the object's */
  name?: string;
  /** CONNECT: the options kind (PodExecOptions …) and the name of the object connected to */
  connect?: { kind: string; name: string };
}

export interface AdmissionPlugin {
  name: string;
  admit(attrs: AdmissionAttributes): Promise<void> | void;
}

/** kube's validation-only plugins (the rest mutate, or do both): their time is the "validate" step's */
const validating = new Set([
  'NamespaceLifecycle', 'NodeRestriction', 'PersistentVolumeClaimResize', 'PodSecurity', 'RBACEscalationPrevention', 'ResourceQuota',
  'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook',
]);

type Op = AdmissionAttributes['operation'];
type Step = 'admit' | 'validate';

export class Admission {
  /** records each plugin's latency and the steps' (apiserver_admission_*); unset: nothing is timed */
  private metrics?: ApiServerMetrics;
  /** the cells of each plugin by operation and outcome, found once */
  private cells: Map<string, HistogramCell>[] = [];

  constructor(private readonly plugins: AdmissionPlugin[] = []) {}

  add(plugin: AdmissionPlugin): void {
    this.plugins.push(plugin);
  }

  names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  record(metrics: ApiServerMetrics | undefined): void {
    this.metrics = metrics;
    this.cells = [];
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (this.metrics) return this.admitTimed(attrs, this.metrics);
    for (const p of this.plugins) {
      // Most plugins decide synchronously for most requests: only wait on the ones that return a promise.
      const pending = p.admit(attrs);
      if (pending) await pending;
    }
  }

  private cell(m: ApiServerMetrics, i: number, op: Op, rejected: boolean): HistogramCell {
    const byOp = (this.cells[i] ??= new Map());
    const k = rejected ? `${op}!` : op;
    let c = byOp.get(k);
    if (!c) {
      const name = this.plugins[i]!.name;
      byOp.set(k, (c = m.admissionController.with(name, validating.has(name) ? 'validate' : 'admit', op, String(rejected))));
    }
    return c;
  }

  private async admitTimed(attrs: AdmissionAttributes, m: ApiServerMetrics): Promise<void> {
    const op = attrs.operation;
    const spent: Record<Step, number> = { admit: 0, validate: 0 };
    const steps = (rejected: string) => {
      for (const step of ['admit', 'validate'] as const) m.admissionStep.with(step, op, rejected).observe(spent[step] / 1000);
    };
    for (let i = 0; i < this.plugins.length; i++) {
      const p = this.plugins[i]!;
      const t = performance.now();
      try {
        const pending = p.admit(attrs);
        if (pending) await pending;
      } catch (e) {
        const ms = performance.now() - t;
        spent[validating.has(p.name) ? 'validate' : 'admit'] += ms;
        this.cell(m, i, op, true).observe(ms / 1000);
        steps('true');
        throw e;
      }
      const ms = performance.now() - t;
      spent[validating.has(p.name) ? 'validate' : 'admit'] += ms;
      this.cell(m, i, op, false).observe(ms / 1000);
    }
    steps('false');
  }
}
