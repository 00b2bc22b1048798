// Go's JSON encoding of a v1 Pod, applied to the stored form: omitempty fields holding a zero value (false, 0, "",
// empty list or map, null) are dropped, and non-pointer struct fields that Go always writes are filled in (`{}`,
// `null` for an unset metav1.Time, "0" for a zero Quantity). The tables come from the struct tags of
// k8s.io/api/core/v1 (1.33): DROP lists, per definition, the omitempty fields of non-pointer scalar, slice or map type.
import type { Schema } from '../machinery/schema.js';
import { podDefinitions, V1 } from './core-pod-schema.js';
import type { Pod } from './core-pod-types.js';

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
  drop: ReadonlySet<string> | undefined;
  /** the ALWAYS entries of the definition (keys checked with `in`, as their values may be null) */
  always: Record<string, unknown>;
  alwaysKeys: readonly string[];
  /** per property: the definition of an object value and of array items */
  child: ReadonlyMap<string, string>;
  item: ReadonlyMap<string, string>;
}

function buildPlans(): ReadonlyMap<string, Plan> {
  const drop = new Map(Object.entries(DROP_TABLE).map(([k, v]) => [k, new Set(v.split(' '))]));
  const plans = new Map<string, Plan>();
  const names = new Set([...Object.keys(podDefinitions).filter((n) => n.startsWith(V1)).map((n) => n.slice(V1.length)), ...drop.keys(), ...Object.keys(ALWAYS)]);
  for (const def of names) {
    const sc = podDefinitions[V1 + def];
    const child = new Map<string, string>();
    const item = new Map<string, string>();
    for (const [k, prop] of Object.entries(sc?.properties ?? {})) {
      const c = refName(prop);
      if (c) child.set(k, c);
      const i = refName(prop.items);
      if (i) item.set(k, i);
    }
    const always = ALWAYS[def] ?? {};
    plans.set(def, { drop: drop.get(def), always, alwaysKeys: Object.keys(always), child, item });
  }
  return plans;
}

const PLANS = buildPlans();
const NO_PLAN: Plan = { drop: undefined, always: {}, alwaysKeys: [], child: new Map(), item: new Map() };

/** A fresh copy of an ALWAYS zero value (plain JSON: {}, null, strings and nested objects). */
function copyZero(v: unknown): unknown {
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const k of Object.keys(v)) out[k] = copyZero(v[k]);
  return out;
}

function normalize(o: Obj, def: string): void {
  const plan = PLANS.get(def) ?? NO_PLAN;
  const { drop, always } = plan;
  // for-in, not Object.keys: no array per object, three times per pod create (deleting the key visited is safe)
  for (const k in o) {
    if (k in always) continue;
    const v = o[k];
    if (v === null || (drop?.has(k) && isZero(v))) {
      delete o[k];
      continue;
    }
    if (typeof v !== 'object' || v === undefined) continue;
    if (Array.isArray(v)) {
      const item = plan.item.get(k);
      if (item) for (const x of v) if (isObj(x)) normalize(x, item);
    } else {
      const child = plan.child.get(k);
      if (child) normalize(v as Obj, child);
    }
  }
  for (const k of plan.alwaysKeys) {
    const zero = always[k];
    // Go decodes null into a non-pointer struct as its zero value.
    if (o[k] === undefined || (o[k] === null && zero !== null)) o[k] = copyZero(zero);
    const child = plan.child.get(k);
    if (child && isObj(o[k])) normalize(o[k] as Obj, child);
  }
}

/** Rewrites spec and status as Go would serialise them after decoding (idempotent). */
export function normalizePodEncoding(pod: Pod): void {
  if (isObj(pod.spec)) normalize(pod.spec, 'PodSpec');
  if (isObj(pod.status)) normalize(pod.status, 'PodStatus');
}
