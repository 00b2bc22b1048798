// The API objects a pod names (kube's podutil.VisitPodSecretNames / VisitPodConfigmapNames and the node
// authorizer's graph populator): what a node may read once the pod is bound to it, and what a node's mirror pod
// must not name. Every container counts: init, regular and ephemeral.

type Obj = Record<string, unknown> | undefined;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export interface PodReferences {
  secrets: Set<string>;
  configMaps: Set<string>;
  /** PersistentVolumeClaims, ephemeral volumes' generated claims included */
  claims: Set<string>;
  resourceClaims: Set<string>;
  serviceAccount: string;
}

/** volume sources that name a Secret through `secretRef` (in the pod's namespace) */
const SECRET_REF_SOURCES = ['cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos'];

export function podReferences(pod: { metadata?: { name?: string }; spec?: unknown; status?: unknown }): PodReferences {
  const spec = obj(pod.spec) ?? {};
  const refs: PodReferences = { secrets: new Set(), configMaps: new Set(), claims: new Set(), resourceClaims: new Set(), serviceAccount: str(spec.serviceAccountName) };
  const add = (set: Set<string>, name: unknown) => {
    if (str(name)) set.add(str(name));
  };
  for (const s of list(spec.imagePullSecrets)) add(refs.secrets, s?.name);
  for (const c of [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)]) {
    for (const e of list(c?.envFrom)) {
      add(refs.secrets, obj(e?.secretRef)?.name);
      add(refs.configMaps, obj(e?.configMapRef)?.name);
    }
    for (const e of list(c?.env)) {
      const from = obj(e?.valueFrom);
      add(refs.secrets, obj(from?.secretKeyRef)?.name);
      add(refs.configMaps, obj(from?.configMapKeyRef)?.name);
    }
  }
  for (const v of list(spec.volumes)) {
    if (!v) continue;
    add(refs.secrets, obj(v.secret)?.secretName);
    add(refs.secrets, obj(v.azureFile)?.secretName);
    add(refs.secrets, obj(obj(v.csi)?.nodePublishSecretRef)?.name);
    for (const src of SECRET_REF_SOURCES) add(refs.secrets, obj(obj(v[src])?.secretRef)?.name);
    add(refs.configMaps, obj(v.configMap)?.name);
    for (const p of list(obj(v.projected)?.sources)) {
      add(refs.secrets, obj(p?.secret)?.name);
      add(refs.configMaps, obj(p?.configMap)?.name);
    }
    add(refs.claims, obj(v.persistentVolumeClaim)?.claimName);
    if (v.ephemeral && pod.metadata?.name) refs.claims.add(`${pod.metadata.name}-${str(v.name)}`);
  }
  for (const c of list(spec.resourceClaims)) add(refs.resourceClaims, c?.resourceClaimName);
  for (const c of list(obj(pod.status)?.resourceClaimStatuses)) add(refs.resourceClaims, c?.resourceClaimName);
  return refs;
}

/** The audiences of the pod's projected service account token volumes ('' for the API server's own). */
export function projectedTokenAudiences(pod: object): Set<string> {
  const out = new Set<string>();
  for (const v of list(obj((pod as { spec?: unknown }).spec)?.volumes)) {
    for (const p of list(obj(v?.projected)?.sources)) {
      const t = obj(p?.serviceAccountToken);
      if (t) out.add(str(t.audience));
    }
  }
  return out;
}

/** Whether a projected volume names a ClusterTrustBundle (a node's mirror pod may not). */
export function referencesClusterTrustBundle(pod: object): boolean {
  return list(obj((pod as { spec?: unknown }).spec)?.volumes).some((v) => list(obj(v?.projected)?.sources).some((p) => !!p?.clusterTrustBundle));
}
