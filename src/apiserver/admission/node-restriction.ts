// The NodeRestriction admission plugin (plugin/pkg/admission/noderestriction, 1.33 with
// ServiceAccountNodeAudienceRestriction on): a kubelet (system:node:<name> in system:nodes) may write only its own
// Node (not its taints, configSource or restricted labels), mirror pods bound to itself, the status and evictions
// of its own pods, its own Lease and CSINode, PVC status, and tokens bound to its own pods for audiences those pods
// use. Other users pass untouched.
import type { KObject } from '../../api/types.js';
import { kubeletMaySetLabel, modifiedLabels } from '../../api/core/node/kubelet-labels.js';
import { podReferences, projectedTokenAudiences, referencesClusterTrustBundle } from '../../api/core/pod/references.js';
import type { AccessDecider } from '../../api/rbac/rules.js';
import { errors, type StatusError } from '../../machinery/errors.js';
import { deepEqual } from '../../machinery/object.js';
import { NODE_LEASE_NAMESPACE, nodeIdentity } from '../auth/node-authorizer.js';
import type { ResourceStore } from '../registry/store.js';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.js';

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

export interface NodeRestrictionOptions {
  pods: () => ResourceStore;
  nodes: () => ResourceStore;
  /** asked when a node requests a token for an audience its pod does not use */
  authorizer: () => AccessDecider | undefined;
}

type Spec = Record<string, unknown>;
const specOf = (o: KObject | undefined) => ((o as { spec?: Spec } | undefined)?.spec ?? {}) as Spec;
const statusOf = (o: KObject | undefined) => ((o as { status?: Spec } | undefined)?.status ?? {}) as Spec;

export function nodeRestriction(opts: NodeRestrictionOptions): AdmissionPlugin {
  return {
    name: 'NodeRestriction',
    async admit(a) {
      if (a.operation === 'CONNECT') return;
      const node = nodeIdentity(a.ctx.user);
      if (node === undefined) return;
      const forbid = (message: string) => forbidden(a, message);
      if (node === '') throw forbid(`could not determine node from user "${a.ctx.user.name}"`);
      const { group, plural } = a.store.def;
      const sub = a.subresource ?? '';
      switch (`${group}/${plural}`) {
        case '/pods':
          if (sub === '') return admitPod(node, a, opts, forbid);
          if (sub === 'status') return admitPodStatus(node, a, forbid);
          if (sub === 'eviction') return admitEviction(node, a, opts, forbid);
          throw forbid(`unexpected pod subresource "${sub}", only 'status' and 'eviction' are allowed`);
        case '/nodes':
          return admitNode(node, a, forbid);
        case '/persistentvolumeclaims':
          if (sub !== 'status') throw forbid('may only update PVC status');
          return admitPVCStatus(node, a, forbid);
        case '/serviceaccounts':
          return admitToken(node, a, opts, forbid);
        case 'coordination.k8s.io/leases':
          if (a.namespace !== NODE_LEASE_NAMESPACE) throw forbid(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
          if (nameOf(a) !== node) throw forbid('can only access node lease with the same name as the requesting node');
          return;
        case 'storage.k8s.io/csinodes':
          if (nameOf(a) !== node) throw forbid('can only access CSINode with the same name as the requesting node');
          return;
        default:
          return;
      }
    },
  };
}

/** the name the request acts on: the object's on create, the path's otherwise */
const nameOf = (a: AdmissionAttributes) => (a.operation === 'CREATE' && !a.name ? a.object.metadata.name ?? '' : a.name ?? a.object.metadata.name ?? '');

/**
 * admission.NewForbidden: `<resource> "<name>" is forbidden: <why>`, the name being the object's (its generateName
 * before one is made), "Unknown" without one (a delete carries no object)
 */
function forbidden(a: AdmissionAttributes, message: string): StatusError {
  const gr = a.store.gr;
  const m = a.operation === 'DELETE' ? undefined : a.object.metadata;
  const name = m?.name || m?.generateName || 'Unknown';
  const qualified = gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
  return errors.forbidden(gr, name, `${qualified} "${name}" is forbidden: ${message}`);
}

type Forbid = (message: string) => StatusError;

async function admitPod(node: string, a: AdmissionAttributes, opts: NodeRestrictionOptions, forbid: Forbid): Promise<void> {
  if (a.operation === 'DELETE') {
    const existing = a.old ?? (await opts.pods().get(a.namespace, a.name ?? ''));
    if (specOf(existing).nodeName !== node) throw forbid(`node "${node}" can only delete pods with spec.nodeName set to itself`);
    return;
  }
  if (a.operation !== 'CREATE') throw forbid(`unexpected operation "${a.operation}", node "${node}" can only create and delete mirror pods`);
  const pod = a.object;
  const spec = specOf(pod);
  if (!(MIRROR_POD_ANNOTATION in (pod.metadata.annotations ?? {}))) {
    throw forbid(`pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
  }
  if (spec.nodeName !== node) throw forbid(`node "${node}" can only create pods with spec.nodeName set to itself`);
  const owners = pod.metadata.ownerReferences ?? [];
  if (owners.length > 1) throw forbid(`node "${node}" can only create pods with a single owner reference set to itself`);
  if (owners.length === 0) throw forbid(`node "${node}" can only create pods with an owner reference set to itself`);
  const owner = owners[0]!;
  if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) throw forbid(`node "${node}" can only create pods with an owner reference set to itself`);
  if (!owner.controller) throw forbid(`node "${node}" can only create pods with a controller owner reference set to itself`);
  if (owner.blockOwnerDeletion) throw forbid(`node "${node}" must not set blockOwnerDeletion on an owner reference`);
  const own = await opts.nodes().get('', node);
  if (owner.uid !== own.metadata.uid) throw forbid(`node ${node} UID mismatch: expected ${owner.uid} got ${own.metadata.uid}`);
  const refs = podReferences(pod);
  if (refs.serviceAccount) throw forbid(`node "${node}" can not create pods that reference a service account`);
  if (refs.secrets.size) throw forbid(`node "${node}" can not create pods that reference secrets`);
  if (refs.configMaps.size) throw forbid(`node "${node}" can not create pods that reference configmaps`);
  if (referencesClusterTrustBundle(pod)) throw forbid(`node "${node}" can not create pods that reference clustertrustbundles`);
  const volumes = (spec.volumes ?? []) as { persistentVolumeClaim?: unknown }[];
  if (volumes.some((v) => v?.persistentVolumeClaim)) throw forbid(`node "${node}" can not create pods that reference persistentvolumeclaims`);
}

function admitPodStatus(node: string, a: AdmissionAttributes, forbid: Forbid): void {
  if (a.operation !== 'UPDATE') throw forbid(`unexpected operation "${a.operation}"`);
  if (specOf(a.old).nodeName !== node) throw forbid(`node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
  if (!deepEqual(a.old?.metadata.labels ?? {}, a.object.metadata.labels ?? {})) throw forbid(`node "${node}" cannot update labels through pod status`);
  const claims = (o: KObject | undefined) => ((statusOf(o).resourceClaimStatuses ?? []) as { name?: string; resourceClaimName?: string }[]).map((c) => [c.name, c.resourceClaimName ?? null]);
  if (!deepEqual(claims(a.old), claims(a.object))) throw forbid(`node "${node}" cannot update resource claim statues`);
}

async function admitEviction(node: string, a: AdmissionAttributes, opts: NodeRestrictionOptions, forbid: Forbid): Promise<void> {
  if (a.operation !== 'CREATE') throw forbid(`unexpected operation ${a.operation}`);
  // the pod named by the path, else by the Eviction
  const podName = a.name || a.object.metadata.name;
  if (!podName) throw forbid('could not determine pod from request data');
  const pod = await opts.pods().get(a.namespace, podName);
  if (specOf(pod).nodeName !== node) throw forbid(`node ${node} can only evict pods with spec.nodeName set to itself`);
}

function admitNode(node: string, a: AdmissionAttributes, forbid: Forbid): void {
  const requested = nameOf(a);
  if (requested !== node) throw forbid(`node "${node}" is not allowed to modify node "${requested}"`);
  const spec = specOf(a.object);
  if (a.operation === 'CREATE') {
    if (spec.configSource != null) throw forbid(`node "${node}" is not allowed to create pods with a non-nil configSource`);
    const bad = modifiedLabels(a.object.metadata.labels, undefined).filter((k) => !kubeletMaySetLabel(k));
    if (bad.length) throw forbid(`node "${node}" is not allowed to set the following labels: ${bad.join(', ')}`);
  } else if (a.operation === 'UPDATE') {
    const old = specOf(a.old);
    if (spec.configSource != null && !deepEqual(spec.configSource, old.configSource)) throw forbid(`node "${node}" is not allowed to update configSource to a new non-nil configSource`);
    if (!deepEqual(spec.taints ?? [], old.taints ?? [])) throw forbid(`node "${node}" is not allowed to modify taints`);
    const bad = modifiedLabels(a.object.metadata.labels, a.old?.metadata.labels).filter((k) => !kubeletMaySetLabel(k));
    if (bad.length) throw forbid(`is not allowed to modify labels: ${bad.join(', ')}`);
  }
}

/** a PVC status update may change only status.capacity, conditions and the allocated resources */
function admitPVCStatus(node: string, a: AdmissionAttributes, forbid: Forbid): void {
  if (a.operation !== 'UPDATE') throw forbid(`unexpected operation "${a.operation}"`);
  const strip = (o: KObject | undefined) => {
    const { resourceVersion: _rv, managedFields: _mf, ...metadata } = o?.metadata ?? {};
    const { capacity: _c, conditions: _k, allocatedResourceStatuses: _s, allocatedResources: _r, ...status } = statusOf(o);
    return { ...o, metadata, status };
  };
  if (!deepEqual(strip(a.old), strip(a.object))) throw forbid(`node "${node}" is not allowed to update fields other than status.capacity and status.conditions`);
}

interface TokenRequestSpec {
  audiences?: string[];
  boundObjectRef?: { apiVersion?: string; kind?: string; name?: string; uid?: string };
}

async function admitToken(node: string, a: AdmissionAttributes, opts: NodeRestrictionOptions, forbid: Forbid): Promise<void> {
  if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
  const spec = (specOf(a.object) ?? {}) as TokenRequestSpec;
  const ref = spec.boundObjectRef;
  if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) throw forbid('node requested token not bound to a pod');
  if (!ref.uid) throw forbid('node requested token with a pod binding without a uid');
  const pod = await opts.pods().get(a.namespace, ref.name);
  if (ref.uid !== pod.metadata.uid) {
    throw forbid(`the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  if (specOf(pod).nodeName !== node) throw forbid('node requested token bound to a pod scheduled on a different node');
  // ServiceAccountNodeAudienceRestriction: no audience (the API server's own) or one a volume of the pod uses
  const audiences = spec.audiences ?? [];
  if (audiences.length === 0) return;
  if (audiences.length > 1) throw forbid('node may only request 0 or 1 audiences');
  const audience = audiences[0]!;
  if (projectedTokenAudiences(pod).has(audience)) return;
  const d = opts.authorizer()?.authorize(a.ctx.user, {
    verb: 'request-serviceaccounts-token-audience', resourceRequest: true, apiGroup: '', resource: audience, subresource: '',
    namespace: a.namespace, name: a.name ?? '', path: '',
  });
  if (d?.allowed) return;
  throw forbid(`audience "${audience}" not found in pod spec volume, ${a.ctx.user.name} is not authorized to request tokens for this audience`);
}
