// TypeScript shapes of the CRI v1 (runtime.v1) messages k1s sends and receives.
// Field names are the proto's snake_case names because the proto is loaded with keepCase;
// int64/uint64 are strings (longs: String), enums are their value names (enums: String),
// bytes are Buffers. Requests may leave any field out (proto3 defaults); responses come back
// with every scalar, repeated and map field filled (defaults: true) and unset sub-messages as null.
// The wire contract (names, numbers) lives in cri-api-proto.ts.

/** int64 / uint64 on the wire: decimal strings when decoding; numbers are accepted when encoding. */
export type Int64 = string;
export type Int64In = string | number;

// The stats messages (ListContainerStats, ListPodSandboxStats) are many; they have their own file.
export type * from './cri-stats-types.js';
import type { FilesystemUsage } from './cri-stats-types.js';

export type Protocol = 'TCP' | 'UDP' | 'SCTP';
export type MountPropagation = 'PROPAGATION_PRIVATE' | 'PROPAGATION_HOST_TO_CONTAINER' | 'PROPAGATION_BIDIRECTIONAL';
export type NamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';
export type SupplementalGroupsPolicy = 'Merge' | 'Strict';
export type ProfileType = 'RuntimeDefault' | 'Unconfined' | 'Localhost';
export type PodSandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
export type ContainerState = 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';
/** `SIGNAL_RUNTIME_DEFAULT`, `SIGNAL_SIGTERM`, `SIGNAL_SIGKILL`, … (the proto's Signal enum). */
export type Signal = `SIGNAL_${string}`;

// ---- version / status ------------------------------------------------------------------
export interface VersionRequest { version?: string }
export interface VersionResponse {
  version: string;
  runtime_name: string;
  runtime_version: string;
  runtime_api_version: string;
}
export interface StatusRequest { verbose?: boolean }
export interface RuntimeCondition { type: string; status: boolean; reason: string; message: string }
export interface RuntimeStatus { conditions: RuntimeCondition[] }
export interface RuntimeHandlerFeatures { recursive_read_only_mounts: boolean; user_namespaces: boolean }
export interface RuntimeHandler { name: string; features?: RuntimeHandlerFeatures | null }
export interface RuntimeFeatures {
  supplemental_groups_policy: boolean;
  user_namespaces_host_network: boolean;
  mount_options: boolean;
}
export interface StatusResponse {
  status?: RuntimeStatus | null;
  info: Record<string, string>;
  runtime_handlers: RuntimeHandler[];
  features?: RuntimeFeatures | null;
}

// ---- shared pieces ----------------------------------------------------------------------
export interface KeyValue { key: string; value: string }
export interface Int64Value { value: Int64In }
export interface UInt64Value { value: Int64 }
export interface DNSConfig { servers?: string[]; searches?: string[]; options?: string[] }
export interface PortMapping { protocol?: Protocol; container_port?: number; host_port?: number; host_ip?: string }
export interface IDMapping { host_id?: number; container_id?: number; length?: number }
export interface ImageSpec {
  image?: string;
  annotations?: Record<string, string>;
  user_specified_image?: string;
  runtime_handler?: string;
  image_ref?: string;
}
export interface Mount {
  container_path?: string;
  host_path?: string;
  readonly?: boolean;
  selinux_relabel?: boolean;
  propagation?: MountPropagation;
  uidMappings?: IDMapping[];
  gidMappings?: IDMapping[];
  recursive_read_only?: boolean;
  image?: ImageSpec | null;
  image_sub_path?: string;
  mount_options?: string[];
}
export interface Device { container_path?: string; host_path?: string; permissions?: string }
export interface CDIDevice { name?: string }
export interface UserNamespace { mode?: NamespaceMode; uids?: IDMapping[]; gids?: IDMapping[] }
export interface NamespaceOption {
  network?: NamespaceMode;
  pid?: NamespaceMode;
  ipc?: NamespaceMode;
  target_id?: string;
  userns_options?: UserNamespace | null;
}
export interface SELinuxOption { user?: string; role?: string; type?: string; level?: string }
export interface SecurityProfile { profile_type?: ProfileType; localhost_ref?: string }
export interface Capability {
  add_capabilities?: string[];
  drop_capabilities?: string[];
  add_ambient_capabilities?: string[];
}
export interface HugepageLimit { page_size?: string; limit?: Int64In }
export interface LinuxContainerResources {
  cpu_period?: Int64In;
  cpu_quota?: Int64In;
  cpu_shares?: Int64In;
  memory_limit_in_bytes?: Int64In;
  oom_score_adj?: Int64In;
  cpuset_cpus?: string;
  cpuset_mems?: string;
  hugepage_limits?: HugepageLimit[];
  unified?: Record<string, string>;
  memory_swap_limit_in_bytes?: Int64In;
}

// ---- pod sandbox -----------------------------------------------------------------------
export interface PodSandboxMetadata { name?: string; uid?: string; namespace?: string; attempt?: number }
export interface LinuxSandboxSecurityContext {
  namespace_options?: NamespaceOption | null;
  selinux_options?: SELinuxOption | null;
  run_as_user?: Int64Value | null;
  run_as_group?: Int64Value | null;
  readonly_rootfs?: boolean;
  supplemental_groups?: Int64In[];
  supplemental_groups_policy?: SupplementalGroupsPolicy;
  privileged?: boolean;
  seccomp?: SecurityProfile | null;
  apparmor?: SecurityProfile | null;
  seccomp_profile_path?: string;
}
export interface LinuxPodSandboxConfig {
  cgroup_parent?: string;
  security_context?: LinuxSandboxSecurityContext | null;
  sysctls?: Record<string, string>;
  overhead?: LinuxContainerResources | null;
  resources?: LinuxContainerResources | null;
}
export interface PodSandboxConfig {
  metadata?: PodSandboxMetadata | null;
  hostname?: string;
  log_directory?: string;
  dns_config?: DNSConfig | null;
  port_mappings?: PortMapping[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  linux?: LinuxPodSandboxConfig | null;
}
export interface RunPodSandboxRequest { config: PodSandboxConfig; runtime_handler?: string }
export interface RunPodSandboxResponse { pod_sandbox_id: string }
export interface PodIP { ip: string }
export interface PodSandboxNetworkStatus { ip: string; additional_ips: PodIP[] }
export interface Namespace { options?: NamespaceOption | null }
export interface LinuxPodSandboxStatus { namespaces?: Namespace | null }
export interface PodSandboxStatus {
  id: string;
  metadata?: PodSandboxMetadata | null;
  state: PodSandboxState;
  /** nanoseconds since the epoch */
  created_at: Int64;
  network?: PodSandboxNetworkStatus | null;
  linux?: LinuxPodSandboxStatus | null;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  runtime_handler: string;
}
export interface PodSandboxStatusResponse {
  status?: PodSandboxStatus | null;
  info: Record<string, string>;
  containers_statuses: ContainerStatus[];
  timestamp: Int64;
}
export interface PodSandboxFilter {
  id?: string;
  state?: { state: PodSandboxState } | null;
  label_selector?: Record<string, string>;
}
export interface PodSandbox {
  id: string;
  metadata?: PodSandboxMetadata | null;
  state: PodSandboxState;
  created_at: Int64;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  runtime_handler: string;
}

// ---- containers ------------------------------------------------------------------------
export interface ContainerMetadata { name?: string; attempt?: number }
export interface LinuxContainerSecurityContext {
  capabilities?: Capability | null;
  privileged?: boolean;
  namespace_options?: NamespaceOption | null;
  selinux_options?: SELinuxOption | null;
  run_as_user?: Int64Value | null;
  run_as_group?: Int64Value | null;
  run_as_username?: string;
  readonly_rootfs?: boolean;
  supplemental_groups?: Int64In[];
  supplemental_groups_policy?: SupplementalGroupsPolicy;
  no_new_privs?: boolean;
  masked_paths?: string[];
  readonly_paths?: string[];
  seccomp?: SecurityProfile | null;
  apparmor?: SecurityProfile | null;
  apparmor_profile?: string;
  seccomp_profile_path?: string;
}
export interface LinuxContainerConfig {
  resources?: LinuxContainerResources | null;
  security_context?: LinuxContainerSecurityContext | null;
}
export interface ContainerConfig {
  metadata?: ContainerMetadata | null;
  image?: ImageSpec | null;
  command?: string[];
  args?: string[];
  working_dir?: string;
  envs?: KeyValue[];
  mounts?: Mount[];
  devices?: Device[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** relative to the sandbox's log_directory */
  log_path?: string;
  stdin?: boolean;
  stdin_once?: boolean;
  tty?: boolean;
  linux?: LinuxContainerConfig | null;
  CDI_devices?: CDIDevice[];
  stop_signal?: Signal;
}
export interface CreateContainerRequest {
  pod_sandbox_id: string;
  config: ContainerConfig;
  sandbox_config: PodSandboxConfig;
}
export interface ContainerFilter {
  id?: string;
  state?: { state: ContainerState } | null;
  pod_sandbox_id?: string;
  label_selector?: Record<string, string>;
}
export interface Container {
  id: string;
  pod_sandbox_id: string;
  metadata?: ContainerMetadata | null;
  image?: ImageSpec | null;
  image_ref: string;
  state: ContainerState;
  created_at: Int64;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  image_id: string;
}
export interface LinuxContainerUser { uid: Int64; gid: Int64; supplemental_groups: Int64[] }
export interface ContainerUser { linux?: LinuxContainerUser | null }
export interface ContainerResources { linux?: LinuxContainerResources | null }
export interface ContainerStatus {
  id: string;
  metadata?: ContainerMetadata | null;
  state: ContainerState;
  /** nanoseconds since the epoch; "0" when not reached */
  created_at: Int64;
  started_at: Int64;
  finished_at: Int64;
  exit_code: number;
  image?: ImageSpec | null;
  image_ref: string;
  /** e.g. "Completed", "Error", "OOMKilled" */
  reason: string;
  message: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  mounts: Mount[];
  /** absolute path of the container's log file */
  log_path: string;
  resources?: ContainerResources | null;
  image_id: string;
  user?: ContainerUser | null;
  stop_signal: Signal;
}
export interface ContainerStatusResponse { status?: ContainerStatus | null; info: Record<string, string> }
export interface UpdateContainerResourcesRequest {
  container_id: string;
  linux?: LinuxContainerResources | null;
  annotations?: Record<string, string>;
}

// ---- streaming ---------------------------------------------------------------------------
export interface ExecSyncRequest { container_id: string; cmd: string[]; /** seconds, 0 = none */ timeout?: Int64In }
export interface ExecSyncResponse { stdout: Buffer; stderr: Buffer; exit_code: number }
export interface ExecRequest {
  container_id: string;
  cmd: string[];
  tty?: boolean;
  stdin?: boolean;
  stdout?: boolean;
  stderr?: boolean;
}
export interface AttachRequest { container_id: string; stdin?: boolean; tty?: boolean; stdout?: boolean; stderr?: boolean }
export interface PortForwardRequest { pod_sandbox_id: string; port?: number[] }
export interface StreamUrlResponse { url: string }

// ---- images ------------------------------------------------------------------------------
export interface Image {
  id: string;
  repo_tags: string[];
  repo_digests: string[];
  size: Int64;
  uid?: { value: Int64 } | null;
  username: string;
  spec?: ImageSpec | null;
  pinned: boolean;
}
export interface AuthConfig {
  username?: string;
  password?: string;
  auth?: string;
  server_address?: string;
  identity_token?: string;
  registry_token?: string;
}
export interface PullImageRequest { image: ImageSpec; auth?: AuthConfig | null; sandbox_config?: PodSandboxConfig | null }
export interface ImageStatusResponse { image?: Image | null; info: Record<string, string> }
export interface ImageFsInfoResponse { image_filesystems: FilesystemUsage[]; container_filesystems: FilesystemUsage[] }

// ---- small request/response wrappers ------------------------------------------------------
export interface PodSandboxIdRequest { pod_sandbox_id: string }
export interface ContainerIdRequest { container_id: string }
export interface PodSandboxStatusRequest { pod_sandbox_id: string; verbose?: boolean }
export interface ListPodSandboxRequest { filter?: PodSandboxFilter | null }
export interface ListPodSandboxResponse { items: PodSandbox[] }
export interface CreateContainerResponse { container_id: string }
export interface StopContainerRequest { container_id: string; /** seconds of grace before SIGKILL */ timeout?: Int64In }
export interface ListContainersRequest { filter?: ContainerFilter | null }
export interface ListContainersResponse { containers: Container[] }
export interface ContainerStatusRequest { container_id: string; verbose?: boolean }
export interface ListImagesRequest { filter?: { image?: ImageSpec | null } | null }
export interface ListImagesResponse { images: Image[] }
export interface ImageStatusRequest { image: ImageSpec; verbose?: boolean }
export interface PullImageResponse { image_ref: string }
export interface RemoveImageRequest { image: ImageSpec }
/** responses without fields (StopPodSandbox, StartContainer, …) */
export type Empty = Record<string, never>;
