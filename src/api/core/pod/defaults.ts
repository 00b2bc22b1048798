// Pod defaulting as kube-apiserver 1.33 does it while decoding a v1 Pod: SetDefaults_Pod / PodSpec / Container /
// Probe / volume sources (pkg/apis/core/v1/defaults.go), the +default markers of the generated defaulters, the
// v1 conversion quirks (serviceAccount mirrors serviceAccountName) and ResourceList rounding to milli units.
import { Quantity } from '../../../machinery/quantity.js';
import { normalizePodEncoding, normalizePodStatusEncoding } from './encoding.js';
import type { Container, Handler, Pod, PodSpec, Probe, ResourceList, Volume } from './types.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const setIfUnset = (o: Obj, key: string, value: unknown): void => {
  if (o[key] === undefined || o[key] === null || o[key] === '') o[key] = value;
};

/** Every ResourceList of a pod, as [holder, key] pairs, so callers can rewrite them in place. */
export function resourceLists(pod: Pod): [Obj, string][] {
  const out: [Obj, string][] = [];
  const reqs = (r: unknown) => {
    if (!isObj(r)) return;
    if (isObj(r.limits)) out.push([r, 'limits']);
    if (isObj(r.requests)) out.push([r, 'requests']);
  };
  const spec = pod.spec ?? {};
  for (const list of [spec.initContainers, spec.containers, spec.ephemeralContainers]) for (const c of list ?? []) reqs(c.resources);
  reqs(spec.resources);
  if (isObj(spec.overhead)) out.push([spec as Obj, 'overhead']);
  for (const v of spec.volumes ?? []) {
    const tmpl = (v.ephemeral as Obj | undefined)?.volumeClaimTemplate as Obj | undefined;
    reqs((tmpl?.spec as Obj | undefined)?.resources);
  }
  statusResourceLists(pod, out);
  return out;
}

/** The ResourceLists of a pod's status (container statuses' resources and allocatedResources), added to `out`. */
function statusResourceLists(pod: Pod, out: [Obj, string][]): void {
  const st = pod.status ?? {};
  for (const list of [st.initContainerStatuses, st.containerStatuses, st.ephemeralContainerStatuses]) {
    for (const cs of list ?? []) {
      const r = cs.resources;
      if (isObj(r)) {
        if (isObj(r.limits)) out.push([r, 'limits']);
        if (isObj(r.requests)) out.push([r, 'requests']);
      }
      if (isObj(cs.allocatedResources)) out.push([cs as Obj, 'allocatedResources']);
    }
  }
}

/**
 * SetDefaults_ResourceList: values finer than milli units are rounded up to milli; each value is then written the
 * way Go serialises the quantity. Unparsable values are left for validation (kube rejects them while decoding).
 */
export function roundedQuantity(v: unknown): string | undefined {
  try {
    const q = Quantity.fromJSON(v);
    return (q.exponent < -3 ? Quantity.milli(q.scaledValue(-3), q.format) : q).toString();
  } catch {
    return undefined;
  }
}

/** The serialised form of a single Quantity field (no rounding: only ResourceLists are rounded). */
function serialisedQuantity(v: unknown): string | undefined {
  try {
    return Quantity.fromJSON(v).toString();
  } catch {
    return undefined;
  }
}

function roundResourceLists(lists: [Obj, string][]): void {
  for (const [holder, key] of lists) {
    const list = holder[key] as ResourceList;
    for (const name of Object.keys(list)) {
      const q = roundedQuantity(list[name]);
      if (q !== undefined) list[name] = q;
    }
  }
}

/** canonicalizePodQuantities of the status alone (a status update keeps the current spec, canonical already). */
function canonicalizePodStatusQuantities(pod: Pod): void {
  const lists: [Obj, string][] = [];
  statusResourceLists(pod, lists);
  roundResourceLists(lists);
}

export function canonicalizePodQuantities(pod: Pod): void {
  roundResourceLists(resourceLists(pod));
  const single = (o: unknown, key: string) => {
    if (!isObj(o) || o[key] === undefined) return;
    const q = serialisedQuantity(o[key]);
    if (q !== undefined) o[key] = q;
  };
  const spec = pod.spec ?? {};
  for (const v of spec.volumes ?? []) {
    single(v.emptyDir, 'sizeLimit');
    for (const item of downwardItems(v)) single(item.resourceFieldRef, 'divisor');
  }
  for (const list of [spec.initContainers, spec.containers, spec.ephemeralContainers]) {
    for (const c of list ?? []) for (const e of c.env ?? []) single(e.valueFrom?.resourceFieldRef, 'divisor');
  }
}

/** Downward API files of a volume: its own items and those of projected downwardAPI sources. */
function downwardItems(v: Volume): Obj[] {
  const items: Obj[] = [];
  const dw = v.downwardAPI as Obj | undefined;
  if (isObj(dw) && Array.isArray(dw.items)) items.push(...(dw.items as Obj[]).filter(isObj));
  const proj = v.projected as Obj | undefined;
  for (const src of (isObj(proj) && Array.isArray(proj.sources) ? proj.sources : []) as Obj[]) {
    const d = isObj(src) ? (src.downwardAPI as Obj | undefined) : undefined;
    if (isObj(d) && Array.isArray(d.items)) items.push(...(d.items as Obj[]).filter(isObj));
  }
  return items;
}

// Docker reference grammar (distribution/reference), enough to tell a tag from a registry port and to reject what
// Go's parser rejects (which then yields no tag, hence IfNotPresent).
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[0-9a-fA-F:.]+\\])(?::[0-9]+)?`;
const REFERENCE = new RegExp(
  `^(?:(${DOMAIN})/)?(${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}))?$`,
);

/**
 * Tags by image, as imageTag found them: the pods of a workload all name the same few images, and matching the
 * reference grammar costs more than the rest of a container's defaulting. Cleared whole when full.
 */
const tags = new Map<string, string>();
const MAX_TAGS = 1024;

/** The tag parsers.ParseImageName reports: "latest" when neither tag nor digest is given, "" when unparsable. */
export function imageTag(image: string): string {
  let tag = tags.get(image);
  if (tag === undefined) {
    tag = parseTag(image);
    if (tags.size >= MAX_TAGS) tags.clear();
    tags.set(image, tag);
  }
  return tag;
}

function parseTag(image: string): string {
  const m = REFERENCE.exec(image);
  if (!m || image.length > 255) return '';
  const [, , , tag, digest] = m;
  if (!tag && !digest) return 'latest';
  return tag ?? '';
}

/** SetDefaults_Container's imagePullPolicy: Always for the latest tag (explicit or implied), else IfNotPresent. */
export function defaultPullPolicy(image: string | undefined): string {
  return imageTag(image ?? '') === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultHandler(h: Handler | undefined): void {
  if (!isObj(h)) return;
  if (isObj(h.httpGet)) {
    setIfUnset(h.httpGet, 'path', '/');
    setIfUnset(h.httpGet, 'scheme', 'HTTP');
  }
  if (isObj(h.grpc) && (h.grpc.service === undefined || h.grpc.service === null)) h.grpc.service = '';
}

function defaultProbe(p: Probe | undefined): void {
  if (!isObj(p)) return;
  defaultHandler(p);
  // Go treats 0 as unset for these int32 fields.
  for (const [k, v] of [['timeoutSeconds', 1], ['periodSeconds', 10], ['successThreshold', 1], ['failureThreshold', 3]] as const) {
    if (!p[k]) p[k] = v;
  }
}

function defaultFieldRef(ref: unknown): void {
  if (isObj(ref)) setIfUnset(ref, 'apiVersion', 'v1');
}

function defaultResourceFieldRef(ref: unknown): void {
  // Divisor is a non-pointer Quantity: Go always serialises it, as "0" when unset.
  if (isObj(ref) && (ref.divisor === undefined || ref.divisor === null)) ref.divisor = '0';
}

export function defaultContainer(c: Container, hostNetwork: boolean): void {
  if (!isObj(c)) return;
  setIfUnset(c, 'imagePullPolicy', defaultPullPolicy(c.image));
  setIfUnset(c, 'terminationMessagePath', '/dev/termination-log');
  setIfUnset(c, 'terminationMessagePolicy', 'File');
  // resources is a non-pointer struct in Go, so it is always present ({} when empty).
  if (!isObj(c.resources)) c.resources = {};
  for (const p of c.ports ?? []) {
    if (!isObj(p)) continue;
    setIfUnset(p, 'protocol', 'TCP');
    if (hostNetwork && !p.hostPort) p.hostPort = p.containerPort;
  }
  for (const e of c.env ?? []) {
    if (!isObj(e) || !isObj(e.valueFrom)) continue;
    defaultFieldRef(e.valueFrom.fieldRef);
    defaultResourceFieldRef(e.valueFrom.resourceFieldRef);
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  if (isObj(c.lifecycle)) {
    defaultHandler(c.lifecycle.postStart);
    defaultHandler(c.lifecycle.preStop);
  }
}

/** Requests default to limits for the keys only limits name (SetDefaults_Pod; not done for pod templates). */
function defaultRequestsFromLimits(c: Container): void {
  const r = c.resources;
  if (!isObj(r) || !isObj(r.limits)) return;
  const requests = (isObj(r.requests) ? r.requests : (r.requests = {})) as ResourceList;
  for (const [k, v] of Object.entries(r.limits as ResourceList)) if (!(k in requests)) requests[k] = v;
}

const MODE_0644 = 420;
const volumeSourceKeys = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile',
  'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume',
  'scaleIO', 'storageos', 'csi', 'ephemeral', 'image',
];

export function volumeSourceNames(v: Volume): string[] {
  return volumeSourceKeys.filter((k) => v[k] !== undefined && v[k] !== null);
}

export function defaultVolume(v: Volume): void {
  if (!isObj(v)) return;
  if (volumeSourceNames(v).length === 0) v.emptyDir = {};
  const src = (k: string): Obj | undefined => (isObj(v[k]) ? (v[k] as Obj) : undefined);
  const hp = src('hostPath');
  if (hp && (hp.type === undefined || hp.type === null)) hp.type = '';
  for (const k of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const s = src(k);
    if (s && (s.defaultMode === undefined || s.defaultMode === null)) s.defaultMode = MODE_0644;
  }
  for (const item of downwardItems(v)) {
    defaultFieldRef(item.fieldRef);
    defaultResourceFieldRef(item.resourceFieldRef);
  }
  const proj = src('projected');
  for (const s of (Array.isArray(proj?.sources) ? proj.sources : []) as Obj[]) {
    const tok = isObj(s) ? s.serviceAccountToken : undefined;
    if (isObj(tok) && (tok.expirationSeconds === undefined || tok.expirationSeconds === null)) tok.expirationSeconds = 3600;
  }
  const pvcSpec = (src('ephemeral')?.volumeClaimTemplate as Obj | undefined)?.spec;
  if (isObj(pvcSpec)) setIfUnset(pvcSpec, 'volumeMode', 'Filesystem');
  // +default markers of the legacy in-tree sources.
  const iscsi = src('iscsi');
  if (iscsi) setIfUnset(iscsi, 'iscsiInterface', 'default');
  const rbd = src('rbd');
  if (rbd) {
    setIfUnset(rbd, 'pool', 'rbd');
    setIfUnset(rbd, 'user', 'admin');
    setIfUnset(rbd, 'keyring', '/etc/ceph/keyring');
  }
  const az = src('azureDisk');
  if (az) {
    setIfUnset(az, 'cachingMode', 'ReadWrite');
    setIfUnset(az, 'fsType', 'ext4');
    if (az.readOnly === undefined || az.readOnly === null) az.readOnly = false;
    setIfUnset(az, 'kind', 'Shared');
  }
  const sio = src('scaleIO');
  if (sio) {
    setIfUnset(sio, 'storageMode', 'ThinProvisioned');
    setIfUnset(sio, 'fsType', 'xfs');
  }
}

/** v1 ↔ internal conversion: serviceAccount is a read alias of serviceAccountName. */
export function syncServiceAccountAlias(spec: PodSpec): void {
  if (!spec.serviceAccountName && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
  if (spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
  else delete spec.serviceAccount;
}

/**
 * defaultPod for the body of a status update: of what it defaults, only the status is kept (the spec is the current
 * object's), and status defaults do not depend on the spec.
 */
export function defaultPodStatus(pod: Pod): void {
  if (!isObj(pod.status)) pod.status = {};
  canonicalizePodStatus(pod);
}

/** The status' share of canonicalisation (its quantities rounded, its encoding as Go writes it). */
export function canonicalizePodStatus(pod: Pod): void {
  canonicalizePodStatusQuantities(pod);
  normalizePodStatusEncoding(pod);
}

/** All defaulting kube-apiserver applies when it decodes a v1 Pod (create and update bodies alike). */
export function defaultPod(pod: Pod): void {
  if (!isObj(pod.spec)) pod.spec = {};
  const spec = pod.spec;
  syncServiceAccountAlias(spec);
  setIfUnset(spec, 'dnsPolicy', 'ClusterFirst');
  setIfUnset(spec, 'restartPolicy', 'Always');
  if (!isObj(spec.securityContext)) spec.securityContext = {};
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) {
    spec.terminationGracePeriodSeconds = 30;
  }
  setIfUnset(spec, 'schedulerName', 'default-scheduler');
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
  const hostNetwork = spec.hostNetwork === true;
  for (const list of [spec.initContainers, spec.containers, spec.ephemeralContainers]) {
    for (const c of list ?? []) defaultContainer(c, hostNetwork && list !== spec.ephemeralContainers);
  }
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) defaultRequestsFromLimits(c);
  for (const v of spec.volumes ?? []) defaultVolume(v);
  if (!isObj(pod.status)) pod.status = {};
  canonicalizePodQuantities(pod);
  normalizePodEncoding(pod);
}
