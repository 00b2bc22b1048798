// TypeScript shapes of core/v1 Pod as the strategy code reads them. Loose on purpose: the schema (schema*.ts)
// is what decides which fields exist; these interfaces only type the fields the pod code touches.
import type { KObject } from '../../types.js';

type Open = { [k: string]: unknown };
export type ResourceList = Record<string, string | number>;

export interface Pod extends KObject {
  spec?: PodSpec;
  status?: PodStatus;
}

export interface PodSpec extends Open {
  volumes?: Volume[];
  initContainers?: Container[];
  containers?: Container[];
  ephemeralContainers?: Container[];
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  dnsPolicy?: string;
  nodeSelector?: Record<string, string>;
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  nodeName?: string;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  shareProcessNamespace?: boolean;
  securityContext?: PodSecurityContext;
  imagePullSecrets?: { name?: string }[];
  hostname?: string;
  subdomain?: string;
  affinity?: Open;
  schedulerName?: string;
  tolerations?: Toleration[];
  hostAliases?: { ip?: string; hostnames?: string[] }[];
  priorityClassName?: string;
  priority?: number;
  preemptionPolicy?: string;
  dnsConfig?: { nameservers?: string[]; searches?: string[]; options?: { name?: string; value?: string }[] };
  readinessGates?: { conditionType?: string }[];
  runtimeClassName?: string;
  enableServiceLinks?: boolean;
  overhead?: ResourceList;
  topologySpreadConstraints?: Open[];
  os?: { name?: string };
  hostUsers?: boolean;
  schedulingGates?: { name?: string }[];
  resourceClaims?: { name?: string; resourceClaimName?: string; resourceClaimTemplateName?: string }[];
  resources?: ResourceRequirements;
}

export interface Container extends Open {
  name?: string;
  image?: string;
  ports?: ContainerPort[];
  env?: EnvVar[];
  envFrom?: Open[];
  resources?: ResourceRequirements;
  resizePolicy?: { resourceName?: string; restartPolicy?: string }[];
  restartPolicy?: string;
  volumeMounts?: VolumeMount[];
  volumeDevices?: { name?: string; devicePath?: string }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { postStart?: Handler; preStop?: Handler; stopSignal?: string };
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  imagePullPolicy?: string;
  securityContext?: SecurityContext;
  targetContainerName?: string;
}

export interface ContainerPort extends Open {
  name?: string;
  hostPort?: number;
  containerPort?: number;
  protocol?: string;
  hostIP?: string;
}

export interface EnvVar extends Open {
  name?: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { apiVersion?: string; fieldPath?: string };
    resourceFieldRef?: { containerName?: string; resource?: string; divisor?: string | number };
    configMapKeyRef?: { name?: string; key?: string; optional?: boolean };
    secretKeyRef?: { name?: string; key?: string; optional?: boolean };
  };
}

export interface ResourceRequirements extends Open {
  limits?: ResourceList;
  requests?: ResourceList;
  claims?: { name?: string; request?: string }[];
}

export interface VolumeMount extends Open {
  name?: string;
  readOnly?: boolean;
  recursiveReadOnly?: string;
  mountPath?: string;
  subPath?: string;
  mountPropagation?: string;
  subPathExpr?: string;
}

export interface Handler extends Open {
  exec?: { command?: string[] };
  httpGet?: { path?: string; port?: number | string; host?: string; scheme?: string; httpHeaders?: { name?: string; value?: string }[] };
  tcpSocket?: { port?: number | string; host?: string };
  grpc?: { port?: number; service?: string };
  sleep?: { seconds?: number };
}

export interface Probe extends Handler {
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

export interface SecurityContext extends Open {
  capabilities?: { add?: string[]; drop?: string[] };
  privileged?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  allowPrivilegeEscalation?: boolean;
  procMount?: string;
  seccompProfile?: { type?: string; localhostProfile?: string };
  appArmorProfile?: { type?: string; localhostProfile?: string };
  windowsOptions?: Open;
}

export interface PodSecurityContext extends SecurityContext {
  supplementalGroups?: number[];
  supplementalGroupsPolicy?: string;
  fsGroup?: number;
  sysctls?: { name?: string; value?: string }[];
  fsGroupChangePolicy?: string;
  seLinuxChangePolicy?: string;
}

export interface Toleration extends Open {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface Volume extends Open {
  name?: string;
}

export interface PodCondition extends Open {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string | null };
  terminated?: { exitCode?: number; signal?: number; reason?: string; finishedAt?: string | null; startedAt?: string | null };
}

export interface ContainerStatus extends Open {
  name?: string;
  state?: ContainerState;
  lastState?: ContainerState;
  ready?: boolean;
  restartCount?: number;
  started?: boolean;
}

export interface PodStatus extends Open {
  observedGeneration?: number;
  phase?: string;
  conditions?: PodCondition[];
  reason?: string;
  nominatedNodeName?: string;
  hostIP?: string;
  hostIPs?: { ip?: string }[];
  podIP?: string;
  podIPs?: { ip?: string }[];
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  ephemeralContainerStatuses?: ContainerStatus[];
  qosClass?: string;
  resourceClaimStatuses?: { name?: string; resourceClaimName?: string }[];
}

/** Regular, init and ephemeral containers with the path prefix kube reports for each. */
export function visitContainers(spec: PodSpec, fn: (c: Container, path: string) => void): void {
  (spec.initContainers ?? []).forEach((c, i) => fn(c, `spec.initContainers[${i}]`));
  (spec.containers ?? []).forEach((c, i) => fn(c, `spec.containers[${i}]`));
  (spec.ephemeralContainers ?? []).forEach((c, i) => fn(c, `spec.ephemeralContainers[${i}]`));
}
