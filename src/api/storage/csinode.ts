// storage.k8s.io/v1 CSINode: types.go, pkg/registry/storage/csinode/strategy.go (long node IDs allowed),
// ValidateCSINode(Update) in pkg/apis/storage/validation/validation.go (MutableCSINodeAllocatableCount is off in
// 1.33, so an existing driver entry is immutable as a whole), printCSINode.
import { FieldError, goQuote } from '../../machinery/errors.js';
import { s, type Definitions } from '../../machinery/schema.js';
import { byteLength, isQualifiedName } from '../../machinery/validation.js';
import { ageColumn, jsonEqual, nameColumn } from '../format.js';
import { kindHeader, listDefinition } from '../meta.js';
import { bare, goPtr, orEmpty } from '../networking/util.js';
import { STORAGE, validateCSIDriverName } from './common.js';
import { defineResource, type KObject } from '../types.js';

export interface CSINodeDriver {
  name?: string;
  nodeID?: string;
  topologyKeys?: string[] | null;
  allocatable?: { count?: number | null } | null;
}
export interface CSINode extends KObject {
  spec?: { drivers?: CSINodeDriver[] | null };
}

const MAX_NODE_ID = 256;

export const csiNodeDefinitions: Definitions = {
  [`${STORAGE}CSINode`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${STORAGE}CSINodeSpec`, 'spec is the specification of CSINode', { default: {} }),
    },
    {
      description:
        'CSINode holds information about all CSI drivers installed on a node. The kubelet fills it in when drivers register (through the node-driver-registrar sidecar). It has the name of its node and an owner reference to it; a missing CSINode means no CSI drivers on the node or an old kubelet.',
      required: ['spec'],
    },
  ),
  [`${STORAGE}CSINodeSpec`]: s.obj(
    {
      drivers: s.arr(s.ref(`${STORAGE}CSINodeDriver`, undefined, { default: {} }), {
        mergeKey: 'name',
        description: 'drivers is a list of information of all CSI Drivers existing on a node. If all drivers in the list are uninstalled, this can become empty.',
      }),
    },
    { description: 'CSINodeSpec holds information about the specification of all CSI drivers installed on a node', required: ['drivers'] },
  ),
  [`${STORAGE}CSINodeDriver`]: s.obj(
    {
      allocatable: s.ref(`${STORAGE}VolumeNodeResources`, 'allocatable represents the volume resources of a node that are available for scheduling.'),
      name: s.str('name is the name of the CSI driver, the one its GetPluginName() call returns.', { default: '' }),
      nodeID: s.str(
        'nodeID is the ID of the node as the driver knows it, for storage systems that name nodes differently from Kubernetes (e.g. "nodeA" for node "node1"). Required.',
        { default: '' },
      ),
      topologyKeys: s.arr(s.str(undefined, { default: '' }), {
        description:
          'topologyKeys lists the topology keys the driver supports (e.g. "company.com/zone"); the kubelet exposes them as node labels and topology aware provisioning reads them. May be empty.',
      }),
    },
    { description: 'CSINodeDriver holds information about the specification of one CSI driver installed on a node', required: ['name', 'nodeID'] },
  ),
  [`${STORAGE}VolumeNodeResources`]: s.obj(
    {
      count: s.int32(
        'count is the maximum number of unique volumes of this driver usable on the node (a volume attached and mounted counts once). Unset means unbounded.',
      ),
    },
    { description: 'VolumeNodeResources is a set of resource limits for scheduling of volumes.' },
  ),
  [`${STORAGE}CSINodeList`]: listDefinition(`${STORAGE}CSINode`, 'CSINodeList is a collection of CSINode objects.', 'items is the list of CSINode'),
};

function validateDriver(d: CSINodeDriver, path: string, seen: Set<string>): FieldError[] {
  const name = d.name ?? '';
  const errs = validateCSIDriverName(name, `${path}.name`);
  const nodeID = d.nodeID ?? '';
  if (nodeID === '') errs.push(FieldError.required(`${path}.nodeID`, ''));
  if (byteLength(nodeID) > MAX_NODE_ID) errs.push(FieldError.invalid(`${path}.nodeID`, nodeID, `must be ${MAX_NODE_ID} characters or less`));
  const count = d.allocatable?.count;
  if (count != null && count < 0) errs.push(FieldError.invalid(`${path}.allocatable.count`, count, 'must be greater than or equal to 0'));
  if (seen.has(name)) errs.push(FieldError.duplicate(`${path}.name`, name));
  seen.add(name);
  const keys = new Set<string>();
  for (const key of orEmpty(d.topologyKeys)) {
    // Kubernetes reports topology key problems at the driver's path.
    if (key === '') errs.push(FieldError.required(path, ''));
    if (keys.has(key)) errs.push(FieldError.duplicate(path, key));
    keys.add(key);
    for (const m of isQualifiedName(key)) errs.push(FieldError.invalid(path, key, m));
  }
  return errs;
}

function validateCSINode(n: CSINode): FieldError[] {
  const seen = new Set<string>();
  return orEmpty(n.spec?.drivers).flatMap((d, i) => validateDriver(d ?? {}, `spec.drivers[${i}]`, seen));
}

/** Go's %#v of storage.CSINodeDriver (the bad value of the immutable-driver error). */
function goDriver(d: CSINodeDriver): { toString(): string } {
  const keys = Array.isArray(d.topologyKeys) ? `[]string{${d.topologyKeys.map((k) => goQuote(k)).join(', ')}}` : '[]string(nil)';
  return bare(
    `storage.CSINodeDriver{Name:${goQuote(d.name ?? '')}, NodeID:${goQuote(d.nodeID ?? '')}, TopologyKeys:${keys}, Allocatable:${goPtr('storage.VolumeNodeResources', d.allocatable)}}`,
  );
}

export const csiNodeResource = defineResource<CSINode>({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSINode',
  plural: 'csinodes',
  singular: 'csinode',
  namespaced: false,
  schemaRef: `${STORAGE}CSINode`,
  definitions: csiNodeDefinitions,
  columns: [
    nameColumn(),
    {
      name: 'Drivers',
      type: 'integer',
      description: 'Drivers indicates the number of CSI drivers registered on the node',
      cell: (o) => orEmpty(o.spec?.drivers).length,
    },
    ageColumn(),
  ],
  strategy: {
    defaults(n) {
      const spec = (n.spec ??= {});
      // drivers and topologyKeys have no omitempty: Go writes null for nil slices.
      if (spec.drivers === undefined) spec.drivers = null;
      for (const d of orEmpty(spec.drivers)) if (d && typeof d === 'object' && d.topologyKeys === undefined) d.topologyKeys = null;
    },
    validate: validateCSINode,
    validateUpdate(n, old) {
      const errs: FieldError[] = [];
      for (const o of orEmpty(old.spec?.drivers)) {
        for (const d of orEmpty(n.spec?.drivers)) {
          if (o?.name !== d?.name) continue;
          const norm = (x: CSINodeDriver) => ({ ...x, topologyKeys: orEmpty(x.topologyKeys), allocatable: x.allocatable ?? null });
          if (!jsonEqual(norm(d), norm(o))) errs.push(FieldError.invalid('spec.drivers', goDriver(d), 'field is immutable'));
        }
      }
      return errs;
    },
    allowCreateOnUpdate: false,
  },
});
