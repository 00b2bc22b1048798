// The cluster the StatefulSet, DaemonSet and history tests run: both controllers, plus the default ServiceAccount
// pods need (the ServiceAccount admission plugin rejects pods without it; no service-account controller runs here).
import type { KObject } from '../../../src/api/types.js';
import { daemonSetController } from '../../../src/controllers/daemonset/controller.js';
import { statefulSetController } from '../../../src/controllers/statefulset/controller.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { controllerCluster, type ControllerCluster } from './harness.js';

export async function workloadCluster(): Promise<ControllerCluster> {
  const c = await controllerCluster([statefulSetController(), daemonSetController()]);
  const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } } as KObject;
  await c.client.resource('v1', 'serviceaccounts').create('default', sa).catch((e) => {
    if (!(e instanceof StatusError && e.code === 409)) throw e;
  });
  return c;
}
