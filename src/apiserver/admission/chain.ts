// Admission: a named, ordered chain of plugins run after validation and before the write.
import type { KObject } from '../../api/types.js';
import type { RequestContext } from '../context.js';
import type { ResourceStore } from '../registry/store.js';

export interface AdmissionAttributes {
  ctx: RequestContext;
  store: ResourceStore;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  object: KObject;
  old?: KObject;
  namespace: string;
  /** the subresource written ('status', 'scale', …), '' for the object itself */
  subresource?: string;
  /** the name in the request's path (actions, deletes): a create's name is the object's */
  name?: string;
  /** CONNECT: the options kind (PodExecOptions …) and the name of the object connected to */
  connect?: { kind: string; name: string };
}

export interface AdmissionPlugin {
  name: string;
  admit(attrs: AdmissionAttributes): Promise<void> | void;
}

export class Admission {
  constructor(private readonly plugins: AdmissionPlugin[] = []) {}

  add(plugin: AdmissionPlugin): void {
    this.plugins.push(plugin);
  }

  names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) {
      // Most plugins decide synchronously for most requests: only wait on the ones that return a promise.
      const pending = p.admit(attrs);
      if (pending) await pending;
    }
  }
}
