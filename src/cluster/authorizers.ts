// The API server's authorizer from --authorization-mode (a comma-separated, ordered list, as kube-apiserver's):
// Node (kubelets, by the node graph), RBAC, AlwaysAllow. k1s' default is Node,RBAC, as kubeadm's.
import { alwaysAllow, RbacAuthorizer, type Authorizer } from '../apiserver/auth/rbac-authorizer.js';
import { NodeAuthorizer } from '../apiserver/auth/node-authorizer.js';
import { NodeGraph } from '../apiserver/auth/node-graph.js';
import { UnionAuthorizer } from '../apiserver/auth/union-authorizer.js';
import type { Registry } from '../apiserver/registry/registry.js';

export const AUTHORIZATION_MODES = ['Node', 'RBAC', 'AlwaysAllow'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];
export const DEFAULT_AUTHORIZATION_MODE = 'Node,RBAC';

/** The modes of a flag value, or an error text naming the problem. */
export function parseAuthorizationModes(value: string): AuthorizationMode[] | string {
  const modes = value.split(',').map((m) => m.trim());
  for (const m of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) return `authorization-mode "${m}" is not a valid mode (use ${AUTHORIZATION_MODES.join(', ')})`;
  }
  if (new Set(modes).size !== modes.length) return `authorization-mode "${value}" has mode specified more than once`;
  return modes as AuthorizationMode[];
}

export interface ClusterAuthorizer {
  authorizer: Authorizer;
  /** whether kubelets are authorized as nodes (the Node mode is on) */
  nodes: boolean;
  /** resolves once the caches follow the store (requests before then are denied) */
  start(): Promise<void>;
  stop(): void;
}

export function buildAuthorizer(registry: Registry, value: string = DEFAULT_AUTHORIZATION_MODE): ClusterAuthorizer {
  const modes = parseAuthorizationModes(value);
  if (typeof modes === 'string') throw new Error(modes);
  const parts: Authorizer[] = [];
  const starts: (() => Promise<void>)[] = [];
  const stops: (() => void)[] = [];
  for (const m of modes) {
    if (m === 'AlwaysAllow') parts.push(alwaysAllow);
    else if (m === 'RBAC') {
      const rbac = new RbacAuthorizer((plural) => registry.mustLookup('rbac.authorization.k8s.io', 'v1', plural));
      parts.push(rbac);
      starts.push(() => rbac.start());
      stops.push(() => rbac.stop());
    } else {
      const graph = new NodeGraph((group, plural) => registry.lookup(group, 'v1', plural));
      parts.push(new NodeAuthorizer(graph));
      starts.push(() => graph.start());
      stops.push(() => graph.stop());
    }
  }
  return {
    authorizer: parts.length === 1 ? parts[0]! : new UnionAuthorizer(parts),
    nodes: modes.includes('Node'),
    start: async () => void (await Promise.all(starts.map((s) => s()))),
    stop: () => stops.forEach((s) => s()),
  };
}
