// The resources established CRDs serve, as the garbage collector and the namespace controller find them (kube's
// controllers rediscover resources; k1s follows the CRDs through an informer, which sees a new one at once).
import type { KObject } from '../../api/types.js';
import type { GCResource } from '../garbage-collector/owners.js';

export const CRD_API = ['apiextensions.k8s.io/v1', 'customresourcedefinitions'] as const;

interface CRDShape {
  spec?: { group?: string; scope?: string; versions?: Array<{ name?: string; served?: boolean; storage?: boolean }> | null };
  status?: { acceptedNames?: { plural?: string; kind?: string }; conditions?: Array<{ type: string; status: string }> | null };
}

/** The storage version's resource of an established CRD (undefined while it is not established). */
export function customResourceOf(o: KObject): GCResource | undefined {
  const crd = o as KObject & CRDShape;
  if (!(crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True')) return undefined;
  const plural = crd.status?.acceptedNames?.plural;
  const versions = (crd.spec?.versions ?? []).filter((v) => v?.served && v.name);
  const v = versions.find((x) => x.storage) ?? versions[0];
  if (!plural || !v || !crd.spec?.group) return undefined;
  return { apiVersion: `${crd.spec.group}/${v.name}`, kind: crd.status?.acceptedNames?.kind, plural, namespaced: crd.spec.scope !== 'Cluster' };
}
