// The webhook configurations in force: MutatingWebhookConfigurations and ValidatingWebhookConfigurations followed
// from storage with a watch, as kube-apiserver's configuration managers follow them through informers. Webhooks run
// sorted by their configuration's name, then in the order the configuration lists them.
import type { KObject } from '../../../api/types.js';
import type { Watch } from '../../../storage/types.js';
import type { Registry } from '../../registry/registry.js';
import type { Webhook } from './types.js';

export type WebhookKind = 'mutating' | 'validating';

export interface ConfiguredWebhook {
  /** the configuration's name */
  configuration: string;
  webhook: Webhook;
  /** bumped when a configuration changes, so callers can drop what they cached for the old one */
  generation: number;
}

const RESOURCES: Record<WebhookKind, string> = {
  mutating: 'mutatingwebhookconfigurations',
  validating: 'validatingwebhookconfigurations',
};

export class WebhookConfigurations {
  private readonly byName: Record<WebhookKind, Map<string, KObject>> = { mutating: new Map(), validating: new Map() };
  private sorted: Record<WebhookKind, ConfiguredWebhook[]> = { mutating: [], validating: [] };
  private readonly watches: Watch[] = [];
  private generation = 0;
  /** called after any configuration changed (the clients cache keys on it) */
  onChange: () => void = () => {};

  constructor(private readonly registry: Registry) {}

  webhooks(kind: WebhookKind): readonly ConfiguredWebhook[] {
    return this.sorted[kind];
  }

  async start(): Promise<void> {
    for (const kind of ['mutating', 'validating'] as const) {
      const rs = this.registry.mustLookup('admissionregistration.k8s.io', 'v1', RESOURCES[kind]);
      const listed = await this.registry.store.list(rs.keyPrefix);
      for (const kv of listed.kvs) {
        const o = rs.decode(kv);
        this.byName[kind].set(o.metadata.name ?? '', o);
      }
      this.rebuild(kind);
      this.watches.push(
        this.registry.store.watch(rs.keyPrefix, { afterRevision: listed.revision }, (ev) => {
          const o = rs.decode(ev.kv);
          if (ev.type === 'DELETED') this.byName[kind].delete(o.metadata.name ?? '');
          else this.byName[kind].set(o.metadata.name ?? '', o);
          this.rebuild(kind);
          this.onChange();
        }),
      );
    }
  }

  stop(): void {
    for (const w of this.watches) w.stop();
  }

  private rebuild(kind: WebhookKind): void {
    const gen = ++this.generation;
    const out: ConfiguredWebhook[] = [];
    for (const name of [...this.byName[kind].keys()].sort()) {
      const hooks = (this.byName[kind].get(name) as { webhooks?: Webhook[] | null }).webhooks ?? [];
      for (const webhook of hooks) if (webhook?.name) out.push({ configuration: name, webhook, generation: gen });
    }
    this.sorted[kind] = out;
  }
}
