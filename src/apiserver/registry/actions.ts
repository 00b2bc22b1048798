// Action subresources (pods/binding, pods/eviction, serviceaccounts/token): requests of their own kind, answered
// by an implementation the cluster registers under the subresource's name.
import type { KObject } from '../../api/types.js';
import type { RequestContext } from '../context.js';
import type { Registry } from './registry.js';
import type { ResourceStore } from './store.js';

export interface ActionRequest {
  ctx: RequestContext;
  store: ResourceStore;
  registry: Registry;
  namespace: string;
  name: string;
  /** the decoded request body (JSON, YAML or protobuf) */
  body: KObject;
}

export interface ActionResult {
  code: number;
  object: unknown;
}

export type ActionHandler = (req: ActionRequest) => Promise<ActionResult>;

export function actionKey(group: string, plural: string, name: string): string {
  return `${group}/${plural}/${name}`;
}
