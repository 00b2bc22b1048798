// Go's JSON encoding of a v1 Pod, applied to the stored form: omitempty fields holding a zero value (false, 0, "",
// empty list or map, null) are dropped, and non-pointer struct fields that Go always writes are filled in (`{}`,
// `null` for an unset metav1.Time, "0" for a zero Quantity). The tables come from the struct tags of
// k8s.io/api/core/v1 (1.33): DROP lists, per definition, the omitempty fields of non-pointer scalar, slice or map type.
import type { Schema } from '../../../machinery/schema.js';
import { podDefinitions, V1 } from './schema.js';
import type { Pod } from './types.js';

const DROP_TABLE: Record<string, string> = {
  AWSElasticBlockStoreVolumeSource: 'fsType partition readOnly',
  AzureFileVolumeSource: 'readOnly',
  CSIVolumeSource: 'volumeAttributes',
  Capabilities: 'add drop',
  CephFSVolumeSource: 'path user secretFile readOnly',
  CinderVolumeSource: 'fsType readOnly',
  ConfigMapEnvSource: 'name',
  ConfigMapKeySelector: 'name',
  ConfigMapProjection: 'name items',
  ConfigMapVolumeSource: 'name items',
  Container: 'image command args workingDir ports envFrom env resizePolicy volumeMounts volumeDevices terminationMessagePath terminationMessagePolicy imagePullPolicy stdin stdinOnce tty',
  ContainerPort: 'name hostPort protocol hostIP',
  ContainerStateTerminated: 'signal reason message containerID',
  ContainerStateWaiting: 'reason message',
  ContainerStatus: 'containerID allocatedResources volumeMounts allocatedResourcesStatus',
  DownwardAPIProjection: 'items',
  DownwardAPIVolumeSource: 'items',
  EmptyDirVolumeSource: 'medium',
  EnvFromSource: 'prefix',
  EnvVar: 'value',
  EphemeralContainer: 'image command args workingDir ports envFrom env resizePolicy volumeMounts volumeDevices terminationMessagePath terminationMessagePolicy imagePullPolicy stdin stdinOnce tty targetContainerName',
  ExecAction: 'command',
  FCVolumeSource: 'targetWWNs fsType readOnly wwids',
  FlexVolumeSource: 'fsType readOnly options',
  FlockerVolumeSource: 'datasetName datasetUUID',
  GCEPersistentDiskVolumeSource: 'fsType partition readOnly',
  GitRepoVolumeSource: 'revision directory',
  GlusterfsVolumeSource: 'readOnly',
  HTTPGetAction: 'path host scheme httpHeaders',
  HostAlias: 'hostnames',
  ISCSIVolumeSource: 'iscsiInterface fsType readOnly portals chapAuthDiscovery chapAuthSession',
  ImageVolumeSource: 'reference pullPolicy',
  LinuxContainerUser: 'supplementalGroups',
  LocalObjectReference: 'name',
  NFSVolumeSource: 'readOnly',
  NodeAffinity: 'preferredDuringSchedulingIgnoredDuringExecution',
  NodeSelectorRequirement: 'values',
  NodeSelectorTerm: 'matchExpressions matchFields',
  ObjectFieldSelector: 'apiVersion',
  PersistentVolumeClaimSpec: 'accessModes volumeName',
  PersistentVolumeClaimVolumeSource: 'readOnly',
  PhotonPersistentDiskVolumeSource: 'fsType',
  PodAffinity: 'requiredDuringSchedulingIgnoredDuringExecution preferredDuringSchedulingIgnoredDuringExecution',
  PodAffinityTerm: 'namespaces matchLabelKeys mismatchLabelKeys',
  PodAntiAffinity: 'requiredDuringSchedulingIgnoredDuringExecution preferredDuringSchedulingIgnoredDuringExecution',
  PodCondition: 'observedGeneration reason message',
  PodDNSConfig: 'nameservers searches options',
  PodDNSConfigOption: 'name',
  PodSecurityContext: 'supplementalGroups sysctls',
  PodSpec: 'volumes initContainers ephemeralContainers restartPolicy dnsPolicy nodeSelector serviceAccountName serviceAccount nodeName hostNetwork hostPID hostIPC imagePullSecrets hostname subdomain schedulerName tolerations hostAliases priorityClassName readinessGates overhead topologySpreadConstraints schedulingGates resourceClaims',
  PodStatus: 'observedGeneration phase conditions message reason nominatedNodeName hostIP hostIPs podIP podIPs initContainerStatuses containerStatuses qosClass ephemeralContainerStatuses resize resourceClaimStatuses',
  PortworxVolumeSource: 'fsType readOnly',
  Probe: 'initialDelaySeconds timeoutSeconds periodSeconds successThreshold failureThreshold',
  QuobyteVolumeSource: 'readOnly user group tenant',
  RBDVolumeSource: 'fsType pool user keyring readOnly',
  ResourceClaim: 'request',
  ResourceFieldSelector: 'containerName',
  ResourceHealth: 'health',
  ResourceRequirements: 'limits requests claims',
  ResourceStatus: 'resources',
  SELinuxOptions: 'user role type level',
  ScaleIOVolumeSource: 'sslEnabled protectionDomain storagePool storageMode volumeName fsType readOnly',
  SecretEnvSource: 'name',
  SecretKeySelector: 'name',
  SecretProjection: 'name items',
  SecretVolumeSource: 'secretName items',
  ServiceAccountTokenProjection: 'audience',
  StorageOSVolumeSource: 'volumeName volumeNamespace fsType readOnly',
  TCPSocketAction: 'host',
  Toleration: 'key operator value effect',
  TopologySpreadConstraint: 'matchLabelKeys',
  VolumeMount: 'readOnly subPath subPathExpr',
  VolumeMountStatus: 'readOnly',
  VolumeResourceRequirements: 'limits requests',
  VsphereVirtualDiskVolumeSource: 'fsType storagePolicyName storagePolicyID',
};

const ALWAYS: Record<string, Record<string, unknown>> = {
  ResourceFieldSelector: { divisor: '0' },
  PersistentVolumeClaimSpec: { resources: {} },
  PersistentVolumeClaimTemplate: { metadata: { creationTimestamp: null }, spec: {} },
  Container: { resources: {} },
  EphemeralContainer: { resources: {} },
  PreferredSchedulingTerm: { preference: {} },
  WeightedPodAffinityTerm: { podAffinityTerm: {} },
  PodCondition: { lastProbeTime: null, lastTransitionTime: null },
  ContainerStateRunning: { startedAt: null },
  ContainerStateTerminated: { startedAt: null, finishedAt: null },
  ContainerStatus: { state: {}, lastState: {} },
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function isZero(v: unknown): boolean {
  return v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0) || (isObj(v) && isEmpty(v));
}

function isEmpty(o: Obj): boolean {
  for (const k in o) if (Object.prototype.hasOwnProperty.call(o, k)) return false;
  return true;
}

function refName(sc: Schema | undefined): string | undefined {
  return sc?.ref?.startsWith(V1) ? sc.ref.slice(V1.length) : undefined;
}

/** What normalize needs of one definition, looked up once: pods are normalised on every create and update. */
interface Plan {
  /** per property that needs anything: one lookup tells all */
  keys: ReadonlyMap<string, KeyPlan>;
  /** the ALWAYS entries of the definition (other keys are still checked with `in`, as before) */
  always: Record<string, unknown>;
  alwaysKeys: readonly string[];
}

interface KeyPlan {
  /** an ALWAYS entry of the definition: left as it is while walking */
  always: boolean;
  /** omitempty: dropped when zero */
  drop: boolean;
  /** the plan of an object value, and of array items */
  child: Plan | undefined;
  item: Plan | undefined;
}

function buildPlans(): ReadonlyMap<string, Plan> {
  const drop = new Map(Object.entries(DROP_TABLE).map(([k, v]) => [k, new Set(v.split(' '))]));
  const plans = new Map<string, Plan>();
  const names = new Set([...Object.keys(podDefinitions).filter((n) => n.startsWith(V1)).map((n) => n.slice(V1.length)), ...drop.keys(), ...Object.keys(ALWAYS)]);
  for (const def of names) {
    const always = ALWAYS[def] ?? {};
    plans.set(def, { keys: new Map(), always, alwaysKeys: Object.keys(always) });
  }
  // a definition without a plan still has its nulls dropped (NO_PLAN)
  const planOf = (name: string | undefined) => (name === undefined ? undefined : (plans.get(name) ?? NO_PLAN));
  for (const def of names) {
    const sc = podDefinitions[V1 + def];
    const plan = plans.get(def)!;
    const keys = plan.keys as Map<string, KeyPlan>;
    const entry = (k: string) => {
      let kp = keys.get(k);
      if (!kp) keys.set(k, (kp = { always: false, drop: false, child: undefined, item: undefined }));
      return kp;
    };
    for (const k of plan.alwaysKeys) entry(k).always = true;
    for (const k of drop.get(def) ?? []) entry(k).drop = true;
    for (const [k, prop] of Object.entries(sc?.properties ?? {})) {
      const child = planOf(refName(prop));
      const item = planOf(refName(prop.items));
      if (child) entry(k).child = child;
      if (item) entry(k).item = item;
    }
  }
  return plans;
}

const NO_PLAN: Plan = { keys: new Map(), always: {}, alwaysKeys: [] };
const PLANS = buildPlans();

/** A fresh copy of an ALWAYS zero value (plain JSON: {}, null, strings and nested objects). */
function copyZero(v: unknown): unknown {
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const k of Object.keys(v)) out[k] = copyZero(v[k]);
  return out;
}

function normalize(o: Obj, plan: Plan): void {
  const { keys, always } = plan;
  // for-in, not Object.keys: no array per object, three times per pod create (deleting the key visited is safe)
  for (const k in o) {
    const kp = keys.get(k);
    if (kp ? kp.always : k in always) continue;
    const v = o[k];
    if (v === null || (kp?.drop && isZero(v))) {
      delete o[k];
      continue;
    }
    if (typeof v !== 'object' || v === undefined || !kp) continue;
    if (Array.isArray(v)) {
      const item = kp.item;
      if (item) for (const x of v) if (isObj(x)) normalize(x, item);
    } else if (kp.child) normalize(v as Obj, kp.child);
  }
  for (const k of plan.alwaysKeys) {
    const zero = always[k];
    // Go decodes null into a non-pointer struct as its zero value.
    if (o[k] === undefined || (o[k] === null && zero !== null)) o[k] = copyZero(zero);
    const child = keys.get(k)?.child;
    if (child && isObj(o[k])) normalize(o[k] as Obj, child);
  }
}

/** Rewrites spec and status as Go would serialise them after decoding (idempotent). */
export function normalizePodEncoding(pod: Pod): void {
  if (isObj(pod.spec)) normalize(pod.spec, PLANS.get('PodSpec')!);
  if (isObj(pod.status)) normalize(pod.status, PLANS.get('PodStatus')!);
}

/** normalizePodEncoding of the status alone. */
export function normalizePodStatusEncoding(pod: Pod): void {
  if (isObj(pod.status)) normalize(pod.status, PLANS.get('PodStatus')!);
}
