// core/v1 ComponentStatus (deprecated since 1.19): a read-only kind (get, list) reporting the health of the
// control-plane components, and printComponentStatus' columns. The objects are computed, not written by clients.
import { s, type Definitions } from '../../machinery/schema.js';
import { CORE } from './common.js';
import { nameColumn } from '../format.js';
import { kindHeader, listDefinition } from '../meta.js';
import { defineResource, type KObject } from '../types.js';

export interface ComponentCondition {
  type?: string;
  status?: string;
  message?: string;
  error?: string;
}

export interface ComponentStatus extends KObject {
  conditions?: ComponentCondition[] | null;
}

/** The warning kube-apiserver adds to ComponentStatus requests (APILifecycleDeprecated 1.19). */
export const COMPONENTSTATUS_DEPRECATION_WARNING = 'v1 ComponentStatus is deprecated in v1.19+';

export const componentStatusDefinitions: Definitions = {
  [`${CORE}ComponentStatus`]: s.obj(
    {
      ...kindHeader(),
      conditions: s.arr(s.ref(`${CORE}ComponentCondition`, undefined, { default: {} }), {
        mergeKey: 'type',
        description: 'Observed conditions of the component.',
      }),
    },
    { description: 'ComponentStatus (deprecated in 1.19) reports the health of a control-plane component such as the scheduler or etcd.' },
  ),
  [`${CORE}ComponentCondition`]: s.obj(
    {
      type: s.str('Type of the condition; only "Healthy" exists.', { default: '' }),
      status: s.str('Status of the condition: "True" healthy, "False" unhealthy, "Unknown".', { default: '' }),
      message: s.str('Message about the condition, such as the health check result.'),
      error: s.str('Error found while checking the component.'),
    },
    { required: ['type', 'status'], description: 'A condition of a component.' },
  ),
  [`${CORE}ComponentStatusList`]: listDefinition(
    `${CORE}ComponentStatus`,
    'ComponentStatusList (deprecated in 1.19) holds the status of every control-plane component.',
    'List of ComponentStatus objects.',
  ),
};

/** The STATUS / MESSAGE / ERROR cells from the first Healthy condition ("Unknown" without one). */
export function componentHealth(cs: ComponentStatus): { status: string; message: string; error: string } {
  const c = (cs.conditions ?? []).find((x) => x.type === 'Healthy');
  if (!c) return { status: 'Unknown', message: '', error: '' };
  return { status: c.status === 'True' ? 'Healthy' : 'Unhealthy', message: c.message ?? '', error: c.error ?? '' };
}

export const componentStatusResource = defineResource<ComponentStatus>({
  group: '',
  version: 'v1',
  kind: 'ComponentStatus',
  plural: 'componentstatuses',
  singular: 'componentstatus',
  shortNames: ['cs'],
  namespaced: false,
  schemaRef: `${CORE}ComponentStatus`,
  definitions: componentStatusDefinitions,
  verbs: ['get', 'list'],
  columns: [
    nameColumn(),
    { name: 'Status', type: 'string', description: 'Status of the component conditions', cell: (c) => componentHealth(c).status },
    { name: 'Message', type: 'string', description: 'Message of the component conditions', cell: (c) => componentHealth(c).message },
    { name: 'Error', type: 'string', description: 'Error of the component conditions', cell: (c) => componentHealth(c).error },
  ],
  strategy: {},
});

/** What the cluster reports: scheduler, controller-manager and etcd-0, all healthy (they run in this process). */
export function componentStatuses(): ComponentStatus[] {
  return ['scheduler', 'controller-manager', 'etcd-0'].map((name) => ({
    kind: 'ComponentStatus',
    apiVersion: 'v1',
    // Component statuses are computed on each request; Go's zero creationTimestamp serialises as null.
    metadata: { name, creationTimestamp: null },
    conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }],
  }));
}
