// The parts of a pod (or pod template) the Pod Security checks read, and the phrasing helpers their messages share.
import { goQuote } from '../../../machinery/errors.js';

export type Json = Record<string, unknown>;

export interface PodMeta {
  name?: string;
  annotations?: Record<string, string>;
}

export interface ContainerLike {
  name?: string;
  securityContext?: Json;
  ports?: { hostPort?: number }[];
  [k: string]: unknown;
}

export interface PodSpecLike {
  securityContext?: Json;
  containers?: ContainerLike[];
  initContainers?: ContainerLike[];
  ephemeralContainers?: ContainerLike[];
  volumes?: (Json & { name?: string })[];
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  hostUsers?: boolean;
  os?: { name?: string };
  runtimeClassName?: string;
  [k: string]: unknown;
}

export interface CheckResult {
  allowed: boolean;
  reason?: string;
  detail?: string;
}

export const ALLOWED: CheckResult = { allowed: true };

export const forbid = (reason: string, detail: string): CheckResult => ({ allowed: false, reason, detail });

export type CheckFn = (meta: PodMeta, spec: PodSpecLike) => CheckResult;

/** Init containers, containers, then ephemeral containers: the order kube visits them in. */
export function allContainers(spec: PodSpecLike): ContainerLike[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
}

export const nameOf = (c: ContainerLike): string => c.name ?? '';

export const obj = (v: unknown): Json | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);

/** A container's securityContext field (undefined when either is unset). */
export const scField = (c: ContainerLike, field: string): unknown => obj(c.securityContext)?.[field];

export const podScField = (spec: PodSpecLike, field: string): unknown => obj(spec.securityContext)?.[field];

/** Go's %q */
export const quote = (s: string): string => goQuote(s);

/** `"a", "b"` */
export const joinQuote = (items: readonly string[]): string => items.map(quote).join(', ');

export const pluralize = (singular: string, plural: string, n: number): string => (n === 1 ? singular : plural);

/** `container "a"` / `containers "a", "b"` */
export const containersPhrase = (names: readonly string[]): string =>
  `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;

/** Sorted the way Go's sets.String.List() sorts (byte order). */
export const sortedSet = (s: Iterable<string>): string[] => [...new Set(s)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

export const isWindows = (spec: PodSpecLike): boolean => spec.os?.name === 'windows';
