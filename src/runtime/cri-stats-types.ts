// CRI v1 stats messages (ListContainerStats, ListPodSandboxStats and their parts), in the conventions cri-types.ts
// describes: snake_case names, int64 as strings, unset sub-messages as null.
import type { ContainerMetadata, Int64, PodSandboxMetadata, UInt64Value } from './cri-types.js';

export interface FilesystemIdentifier { mountpoint: string }
export interface FilesystemUsage {
  timestamp: Int64;
  fs_id?: FilesystemIdentifier | null;
  used_bytes?: UInt64Value | null;
  inodes_used?: UInt64Value | null;
}
export interface CpuUsage {
  timestamp: Int64;
  usage_core_nano_seconds?: UInt64Value | null;
  usage_nano_cores?: UInt64Value | null;
}
export interface MemoryUsage {
  timestamp: Int64;
  working_set_bytes?: UInt64Value | null;
  available_bytes?: UInt64Value | null;
  usage_bytes?: UInt64Value | null;
  rss_bytes?: UInt64Value | null;
  page_faults?: UInt64Value | null;
  major_page_faults?: UInt64Value | null;
}
export interface SwapUsage {
  timestamp: Int64;
  swap_available_bytes?: UInt64Value | null;
  swap_usage_bytes?: UInt64Value | null;
}
export interface IoUsage { timestamp: Int64 }
export interface ContainerAttributes {
  id: string;
  metadata?: ContainerMetadata | null;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
export interface ContainerStats {
  attributes?: ContainerAttributes | null;
  cpu?: CpuUsage | null;
  memory?: MemoryUsage | null;
  writable_layer?: FilesystemUsage | null;
  swap?: SwapUsage | null;
  io?: IoUsage | null;
}
export interface ContainerStatsFilter { id?: string; pod_sandbox_id?: string; label_selector?: Record<string, string> }
export interface NetworkInterfaceUsage {
  name: string;
  rx_bytes?: UInt64Value | null;
  rx_errors?: UInt64Value | null;
  tx_bytes?: UInt64Value | null;
  tx_errors?: UInt64Value | null;
}
export interface NetworkUsage {
  timestamp: Int64;
  default_interface?: NetworkInterfaceUsage | null;
  interfaces: NetworkInterfaceUsage[];
}
export interface ProcessUsage { timestamp: Int64; process_count?: UInt64Value | null }
export interface PodSandboxAttributes {
  id: string;
  metadata?: PodSandboxMetadata | null;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
export interface LinuxPodSandboxStats {
  cpu?: CpuUsage | null;
  memory?: MemoryUsage | null;
  network?: NetworkUsage | null;
  process?: ProcessUsage | null;
  containers: ContainerStats[];
  io?: IoUsage | null;
}
export interface PodSandboxStats { attributes?: PodSandboxAttributes | null; linux?: LinuxPodSandboxStats | null }
export interface PodSandboxStatsFilter { id?: string; label_selector?: Record<string, string> }
export interface ContainerStatsResponse { stats?: ContainerStats | null }
export interface ListContainerStatsRequest { filter?: ContainerStatsFilter | null }
export interface ListContainerStatsResponse { stats: ContainerStats[] }
export interface PodSandboxStatsResponse { stats?: PodSandboxStats | null }
export interface ListPodSandboxStatsRequest { filter?: PodSandboxStatsFilter | null }
export interface ListPodSandboxStatsResponse { stats: PodSandboxStats[] }
