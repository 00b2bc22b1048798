// core/v1 Node as a served resource: pkg/registry/core/node/strategy.go (status may be set on create, kept on
// updates of the main resource), SetDefaults_NodeStatus, and printNode's columns.
import { compareGoStrings } from '../../../machinery/validation.js';
import { CORE } from '../common.js';
import { nodeDefinitions } from './schema.js';
import { validateNode, validateNodeStatusUpdate, validateNodeUpdate, type Node } from './validation.js';
import { canonicalResourceList, roundResourceList } from '../resourcequota/names.js';
import { ageColumn, CELL_NONE, CELL_UNKNOWN, nameColumn } from '../../format.js';
import { defineResource, type TableColumn } from '../../types.js';

export type { Node } from './validation.js';
export { nodeDefinitions } from './schema.js';

const NODE_INFO_FIELDS = [
  'machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion',
  'operatingSystem', 'architecture',
];
const ROLE_PREFIX = 'node-role.kubernetes.io/';
const ROLE_LABEL = 'kubernetes.io/role';

/** SetDefaults_NodeStatus, plus the Go zero values a Node always serialises (spec, daemonEndpoints, nodeInfo). */
export function defaultNode(node: Node): void {
  node.spec ??= {};
  const st = (node.status ??= {});
  if (st.allocatable === undefined && st.capacity !== undefined) st.allocatable = { ...st.capacity };
  roundResourceList(st.capacity);
  roundResourceList(st.allocatable);
  const de = ((st.daemonEndpoints as Record<string, unknown> | undefined) ??= {});
  const ke = ((de.kubeletEndpoint as Record<string, unknown> | undefined) ??= {});
  ke.Port ??= 0;
  const info = (st.nodeInfo ??= {});
  for (const f of NODE_INFO_FIELDS) info[f] ??= '';
}

/** The STATUS cell: Ready / NotReady / Unknown from the Ready condition, plus SchedulingDisabled when cordoned. */
export function nodeStatus(node: Node): string {
  const status: string[] = [];
  const ready = (node.status?.conditions ?? []).filter((c) => c.type === 'Ready').pop();
  if (ready) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  else status.push('Unknown');
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

/** findNodeRoles: node-role.kubernetes.io/<role> labels and the kubernetes.io/role label, sorted. */
export function nodeRoles(node: Node): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
    if (k.startsWith(ROLE_PREFIX)) {
      const role = k.slice(ROLE_PREFIX.length);
      if (role) roles.add(role);
    } else if (k === ROLE_LABEL && v) roles.add(v);
  }
  return [...roles].sort(compareGoStrings).join(',') || CELL_NONE;
}

const address = (node: Node, type: string): string => (node.status?.addresses ?? []).find((a) => a.type === type)?.address ?? CELL_NONE;
const info = (node: Node, f: string): string => (node.status?.nodeInfo?.[f] as string | undefined) || CELL_UNKNOWN;
const doc = (type: string, f: string): string => nodeDefinitions[`${CORE}${type}`].properties![f].description!;

const nodeColumns: TableColumn<Node>[] = [
  nameColumn(),
  { name: 'Status', type: 'string', description: 'The status of the node', cell: nodeStatus },
  { name: 'Roles', type: 'string', description: 'The roles of the node', cell: nodeRoles },
  ageColumn(),
  { name: 'Version', type: 'string', description: doc('NodeSystemInfo', 'kubeletVersion'), cell: (n) => (n.status?.nodeInfo?.kubeletVersion as string) ?? '' },
  { name: 'Internal-IP', type: 'string', priority: 1, description: doc('NodeStatus', 'addresses'), cell: (n) => address(n, 'InternalIP') },
  { name: 'External-IP', type: 'string', priority: 1, description: doc('NodeStatus', 'addresses'), cell: (n) => address(n, 'ExternalIP') },
  { name: 'OS-Image', type: 'string', priority: 1, description: doc('NodeSystemInfo', 'osImage'), cell: (n) => info(n, 'osImage') },
  { name: 'Kernel-Version', type: 'string', priority: 1, description: doc('NodeSystemInfo', 'kernelVersion'), cell: (n) => info(n, 'kernelVersion') },
  {
    name: 'Container-Runtime',
    type: 'string',
    priority: 1,
    description: doc('NodeSystemInfo', 'containerRuntimeVersion'),
    cell: (n) => info(n, 'containerRuntimeVersion'),
  },
];

function nodeWarnings(node: Node): string[] {
  const w: string[] = [];
  if (node.spec?.configSource) w.push('spec.configSource: the feature is removed');
  if (node.spec?.externalID) w.push('spec.externalID: this field is deprecated, and is unused by Kubernetes');
  return w;
}

export const nodeResource = defineResource<Node>({
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  singular: 'node',
  shortNames: ['no'],
  namespaced: false,
  schemaRef: `${CORE}Node`,
  definitions: nodeDefinitions,
  subresources: { status: true },
  columns: nodeColumns,
  selectableFields: { 'spec.unschedulable': (n) => String(n.spec?.unschedulable === true) },
  strategy: {
    defaults: defaultNode,
    prepareForCreate(node) {
      // Nodes may set their status on create; only the removed dynamic-config fields are dropped.
      if (node.spec) delete node.spec.configSource;
      if (node.status) delete node.status.config;
    },
    prepareForUpdate(node, old) {
      if (node.spec && !old.spec?.configSource) delete node.spec.configSource;
    },
    validate: validateNode,
    canonicalize(node) {
      canonicalResourceList(node.status?.capacity);
      canonicalResourceList(node.status?.allocatable);
    },
    validateUpdate: validateNodeUpdate,
    prepareForStatusUpdate(node, old) {
      if (node.status && old.status?.config === undefined) delete node.status.config;
    },
    validateStatusUpdate: validateNodeStatusUpdate,
    warnings: nodeWarnings,
    allowCreateOnUpdate: false,
  },
});
