// The ValidatingAdmissionPolicy status controller's work (kube's validatingadmissionpolicy-status-controller): each
// policy generation is type checked once and its status set to { observedGeneration, typeChecking }.
import type { ValidatingAdmissionPolicy } from '../../../api/admissionregistration/policy-validation.js';
import { newContext } from '../../context.js';
import type { Registry } from '../../registry/registry.js';
import { typeCheckPolicy } from './type-check.js';

const system = { name: 'system:apiserver', groups: ['system:masters'] };

export class PolicyTypeChecks {
  private pending = false;
  private stopped = false;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly registry: Registry,
    private readonly policies: () => ValidatingAdmissionPolicy[],
  ) {}

  /** Checks, soon, every policy whose status does not describe its generation yet. */
  schedule(): void {
    if (this.pending || this.stopped) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      this.running = this.running.then(() => this.run()).catch(() => undefined);
    });
  }

  stop(): void {
    this.stopped = true;
  }

  private async run(): Promise<void> {
    const store = this.registry.mustLookup('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies');
    for (const p of this.policies()) {
      if (this.stopped) return;
      const gen = p.metadata.generation ?? 0;
      if ((p.status as { observedGeneration?: number } | undefined)?.observedGeneration === gen) continue;
      const warnings = typeCheckPolicy(p, this.registry);
      const ctx = newContext(system, { fieldManager: 'validatingadmissionpolicy-status-controller' });
      await store.guaranteedUpdate(ctx, '', p.metadata.name ?? '', (cur) => {
        if (!cur || (cur.metadata.generation ?? 0) !== gen) throw new Error('changed');
        (cur as ValidatingAdmissionPolicy).status = { observedGeneration: gen, typeChecking: warnings.length ? { expressionWarnings: warnings } : {} };
        return cur;
      }, { subresource: 'status' }).catch(() => undefined);
    }
  }
}
