// All served resources of one cluster: a ResourceStore per (group, version, resource), built from definitions.
import type { ResourceDefinition } from '../../api/types.js';
import { SchemaSet, type Definitions } from '../../machinery/schema.js';
import type { Store } from '../../storage/types.js';
import { Admission } from '../admission/chain.js';
import { actionKey, type ActionHandler } from './actions.js';
import { ResourceStore } from './store.js';
import type { AccessDecider } from '../../api/rbac/rules.js';
import type { Metrics } from '../../metrics/metrics.js';
import { GoOrder } from '../../machinery/go-order.js';
import { protoTags } from '../../api/proto-tags/index.js';

export class Registry {
  readonly schemas: SchemaSet;
  /** Go's member order of every built-in type (from the Go field order the protobuf tag tables keep) */
  readonly order: GoOrder;
  readonly admission = new Admission();
  /** the plugins that see CONNECT requests (pods/exec, attach, portforward): the webhooks and policies */
  readonly connectAdmission = new Admission();
  /** the plugins that see action subresources (pods/eviction, serviceaccounts/token) as creates: NodeRestriction */
  readonly actionAdmission = new Admission();
  /** answers the access-review kinds (the same authorizer the API server enforces); unset: system:masters only */
  authorizer?: AccessDecider;
  /** the cluster's metrics (set by useMetrics): requests, watches and admission record there */
  metrics?: Metrics;
  private readonly stores = new Map<string, ResourceStore>();
  private readonly byKind = new Map<string, ResourceStore>();
  readonly definitions: ResourceDefinition[] = [];
  private readonly actions = new Map<string, ActionHandler>();
  /** the store keys each run-time owner (a CustomResourceDefinition) serves */
  private readonly owned = new Map<string, string[]>();
  /** bumped whenever the set of resources changes, so generated documents can be cached */
  generation = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly store: Store,
    definitions: ResourceDefinition[],
    baseDefinitions: Definitions[],
  ) {
    this.schemas = new SchemaSet(...baseDefinitions);
    this.order = new GoOrder(this.schemas, protoTags);
    for (const d of definitions) this.add(d);
  }

  add(def: ResourceDefinition): ResourceStore {
    const k = `${def.group}/${def.version}/${def.plural}`;
    if (this.stores.has(k)) throw new Error(`resource ${k} is defined twice`);
    this.schemas.add(def.definitions);
    const rs = new ResourceStore(def, {
      store: this.store,
      schemas: this.schemas,
      admission: this.admission,
      kindSchema: (apiVersion, kind) => this.forKind(apiVersion, kind)?.def.schemaRef,
      freezeWatchObjects: process.env.K1S_FREEZE_WATCH_OBJECTS === '1',
      order: this.order,
    });
    this.stores.set(k, rs);
    this.byKind.set(`${def.group}/${def.version}/${def.kind}`, rs);
    this.definitions.push(def);
    this.generation++;
    return rs;
  }

  /**
   * Serves `defs` in place of what `owner` (a CustomResourceDefinition's name) served before; [] withdraws them.
   * A definition whose resource or kind another owner (or a built-in kind) serves is left out and returned.
   */
  replaceOwned(owner: string, defs: ResourceDefinition[]): ResourceDefinition[] {
    for (const k of this.owned.get(owner) ?? []) this.remove(k);
    this.owned.delete(owner);
    const keys: string[] = [];
    const refused: ResourceDefinition[] = [];
    for (const d of defs) {
      const k = `${d.group}/${d.version}/${d.plural}`;
      if (this.stores.has(k) || this.byKind.has(`${d.group}/${d.version}/${d.kind}`)) {
        refused.push(d);
        continue;
      }
      this.add(d);
      keys.push(k);
    }
    if (keys.length) this.owned.set(owner, keys);
    this.generation++;
    for (const l of this.listeners) l();
    return refused;
  }

  /** Records requests, watch events and admission latencies in `metrics` from now on. */
  useMetrics(metrics: Metrics): void {
    this.metrics = metrics;
    for (const chain of [this.admission, this.connectAdmission, this.actionAdmission]) chain.record(metrics.apiserver);
  }

  /** Calls `listener` after each change of the resources served at run time (CRDs); returns the unsubscribe. */
  onResourcesChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private remove(key: string): void {
    const rs = this.stores.get(key);
    if (!rs) return;
    this.stores.delete(key);
    const d = rs.def;
    const kindKey = `${d.group}/${d.version}/${d.kind}`;
    if (this.byKind.get(kindKey) === rs) this.byKind.delete(kindKey);
    const i = this.definitions.indexOf(d);
    if (i >= 0) this.definitions.splice(i, 1);
    this.schemas.remove(Object.keys(d.definitions));
  }

  /** Implements an action subresource declared by a definition (subresources.actions). */
  handleAction(group: string, plural: string, name: string, handler: ActionHandler): void {
    this.actions.set(actionKey(group, plural, name), handler);
  }

  action(group: string, plural: string, name: string): ActionHandler | undefined {
    return this.actions.get(actionKey(group, plural, name));
  }

  lookup(group: string, version: string, plural: string): ResourceStore | undefined {
    return this.stores.get(`${group}/${version}/${plural}`);
  }

  /** The store for an apiVersion + kind, e.g. ("v1", "Pod"). */
  forKind(apiVersion: string, kind: string): ResourceStore | undefined {
    const i = apiVersion.indexOf('/');
    const group = i >= 0 ? apiVersion.slice(0, i) : '';
    const version = i >= 0 ? apiVersion.slice(i + 1) : apiVersion;
    return this.byKind.get(`${group}/${version}/${kind}`);
  }

  mustLookup(group: string, version: string, plural: string): ResourceStore {
    const rs = this.lookup(group, version, plural);
    if (!rs) throw new Error(`resource ${plural}.${group || 'core'}/${version} is not registered`);
    return rs;
  }

  all(): ResourceStore[] {
    return [...this.stores.values()];
  }
}
