// The pod action subresources: pods/binding (BindingREST of pkg/registry/core/pod/storage/storage.go, 1.33), the
// legacy namespaced `bindings` resource that does the same, and pods/eviction (eviction.ts).
import { bindingDefinitions, updatePodCondition } from '../../api/core/pod/subresources.js';
import type { Pod } from '../../api/core/pod/types.js';
import { CORE } from '../../api/core/common.js';
import { defineResource, type KObject, type ResourceDefinition } from '../../api/types.js';
import { errors, FieldError, StatusError } from '../../machinery/errors.js';
import { rfc3339 } from '../../machinery/object.js';
import type { ActionHandler } from '../registry/actions.js';
import type { RequestContext } from '../context.js';
import { actionObject, podEvictionHandler, successStatus } from './eviction.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceStore } from '../registry/store.js';

export { podEvictionHandler } from './eviction.js';

const maxRetries = 16;

interface Binding extends KObject {
  target?: { kind?: string; name?: string; [k: string]: unknown };
}

/** ValidatePodBinding. */
export function validatePodBinding(b: Binding): FieldError[] {
  const errs: FieldError[] = [];
  const kind = b.target?.kind ?? '';
  if (kind && kind !== 'Node') errs.push(FieldError.notSupported('target.kind', kind, ['Node', '<empty>']));
  if (!b.target?.name) errs.push(FieldError.required('target.name'));
  return errs;
}

/** Non-Status errors of a REST storage reach the client as a 500 with the error text (ErrorToAPIStatus). */
function plainError(errs: FieldError[]): StatusError {
  const msgs = [...new Set(errs.map(String))];
  return new StatusError(500, '', msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`);
}

/**
 * setPodNodeAndMetadata + assignPod: a compare-and-swap straight on storage (no pod strategy, so neither
 * validation nor a generation bump), preconditioned on the binding's uid and resourceVersion when given.
 */
async function assignPod(pods: ResourceStore, ctx: RequestContext, namespace: string, binding: Binding): Promise<void> {
  const name = binding.metadata.name ?? '';
  const node = binding.target?.name ?? '';
  const refuse = (why: string) => errors.conflict({ group: '', resource: 'pods/binding' }, name, why);
  for (let attempt = 0; attempt < maxRetries; attempt++) {
    const latest = await pods.latestShared(pods.key(namespace, name));
    if (!latest) throw errors.notFound(pods.gr, name);
    const kv = latest.rev;
    // the stored pod, shared (read-only): the bound pod copies only what it changes (metadata, spec, status and
    // its conditions list) and shares the rest, as the store keeps it as the next revision's decoded object
    const current = latest.current as Pod;
    const meta = current.metadata;
    const pre = (what: string, want: string | undefined, have: string | undefined) => {
      if (!want || want === have) return;
      const key = `/registry/pods/${namespace}/${name}`;
      throw errors.conflict(pods.gr, name,
        `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ${what} in precondition: ${want}, ${what} in object meta: ${have ?? ''}`);
    };
    pre('UID', binding.metadata.uid, meta.uid);
    pre('ResourceVersion', binding.metadata.resourceVersion, meta.resourceVersion);
    if (meta.deletionTimestamp) throw refuse(`pod ${name} is being deleted, cannot be assigned to a host`);
    if (current.spec?.nodeName) throw refuse(`pod ${name} is already assigned to node "${current.spec.nodeName}"`);
    if (current.spec?.schedulingGates?.length) throw refuse(`pod ${name} has non-empty .spec.schedulingGates`);
    // assignments keep a key's place and append a new one, as the in-place changes of a decoded copy did
    const pod = { ...current } as Pod;
    const podMeta = (pod.metadata = { ...meta });
    delete podMeta.resourceVersion;
    pod.spec = { ...(current.spec ?? {}), nodeName: node } as Pod['spec'];
    if (current.status) {
      pod.status = { ...current.status };
      if (current.status.conditions) pod.status.conditions = [...current.status.conditions];
    }
    const annotations = { ...(meta.annotations ?? {}), ...(binding.metadata.annotations ?? {}) };
    if (Object.keys(annotations).length) podMeta.annotations = annotations; // an empty map is omitted, as in Go
    updatePodCondition(pod, { type: 'PodScheduled', status: 'True' }, rfc3339()); // replaces list items, never changes one
    if (ctx.dryRun) return;
    if (await pods.writeKept(kv, pod)) return;
  }
  throw errors.staleResourceVersion(pods.gr, name);
}

async function bind(pods: ResourceStore, ctx: RequestContext, namespace: string, binding: Binding) {
  const errs = validatePodBinding(binding);
  if (errs.length) throw plainError(errs);
  await assignPod(pods, ctx, namespace, binding);
  return successStatus();
}

/** POST pods/<name>/binding: sets spec.nodeName of an unbound pod (what a scheduler does). */
export function podBindingHandler(): ActionHandler {
  return async ({ ctx, store, namespace, name, body }) => {
    const binding = actionObject(body, namespace, ['v1'], 'Binding') as Binding;
    if ((binding.metadata.name ?? '') !== name) throw errors.badRequest('name in URL does not match name in Binding object');
    return { code: 201, object: await bind(store, ctx, namespace, binding) };
  };
}

/** POST namespaces/<ns>/bindings (LegacyBindingREST): the binding names the pod in its metadata. */
export function legacyBindingResource(registry: Registry): ResourceDefinition {
  return defineResource<Binding>({
    group: '',
    version: 'v1',
    kind: 'Binding',
    plural: 'bindings',
    singular: 'binding',
    namespaced: true,
    schemaRef: `${CORE}Binding`,
    definitions: bindingDefinitions,
    verbs: ['create'],
    columns: [],
    strategy: {},
    virtual: {
      async create(obj, { user, namespace }) {
        const binding = actionObject(obj, namespace, ['v1'], 'Binding') as Binding;
        const ctx: RequestContext = { user, dryRun: false, fieldManager: 'k1s', fieldValidation: 'Ignore', warnings: [] };
        return (await bind(registry.mustLookup('', 'v1', 'pods'), ctx, namespace, binding)) as unknown as Binding;
      },
    },
  });
}

/** Implements pods/binding and pods/eviction and serves the legacy bindings resource. */
export function registerPodActions(registry: Registry): void {
  registry.handleAction('', 'pods', 'binding', podBindingHandler());
  registry.handleAction('', 'pods', 'eviction', podEvictionHandler());
  if (!registry.lookup('', 'v1', 'bindings')) registry.add(legacyBindingResource(registry));
}
