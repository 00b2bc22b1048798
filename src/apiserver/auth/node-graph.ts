// The node authorizer's graph (plugin/pkg/auth/authorizer/node/graph.go, graph_populator.go): which objects relate
// to which node, kept current from watch-fed caches of pods, PersistentVolumes and VolumeAttachments. The edges:
//   pod → node (spec.nodeName); secret, configmap, pvc, resourceclaim, serviceaccount → pod (the pod names them);
//   pv → pvc (spec.claimRef); secret → pv (the PV's secret references); volumeattachment → node (spec.nodeName).
// An object relates to a node when a path leads from it to the node. The paths are short and fixed, so the graph
// is kept as reverse indexes instead of a general graph.
import type { KObject } from '../../api/types.js';
import { podReferences } from '../../api/core/pod/references.js';
import { AdmissionCache } from '../admission/cache.js';
import type { ResourceStore } from '../registry/store.js';

export type VertexType = 'pod' | 'secret' | 'configmap' | 'pvc' | 'pv' | 'resourceclaim' | 'serviceaccount' | 'volumeattachment';

interface PodEntry {
  node: string;
  /** `type/name` of every object the pod names (all in its namespace) */
  refs: string[];
}

/** counts per key, so two pods naming one secret keep the edge until both are gone */
class RefCounts {
  private readonly m = new Map<string, Map<string, number>>();
  add(key: string, node: string): void {
    let byNode = this.m.get(key);
    if (!byNode) this.m.set(key, (byNode = new Map()));
    byNode.set(node, (byNode.get(node) ?? 0) + 1);
  }
  remove(key: string, node: string): void {
    const byNode = this.m.get(key);
    const n = (byNode?.get(node) ?? 0) - 1;
    if (n > 0) byNode!.set(node, n);
    else byNode?.delete(node);
    if (byNode?.size === 0) this.m.delete(key);
  }
  has(key: string, node: string): boolean {
    return !!this.m.get(key)?.has(node);
  }
  clear(): void {
    this.m.clear();
  }
}

/** The secrets a PersistentVolume names, as `namespace/name` (kube's VisitPVSecretNames). */
export function pvSecretKeys(pv: KObject): string[] {
  const spec = ((pv as { spec?: Record<string, Record<string, unknown> | undefined> }).spec ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const claimNs = ((spec.claimRef as { namespace?: string } | undefined)?.namespace) ?? '';
  const out: string[] = [];
  const ref = (r: unknown, defaultNs: string) => {
    const o = r as { name?: string; namespace?: string } | undefined;
    if (o?.name) out.push(`${o.namespace || defaultNs}/${o.name}`);
  };
  // azureFile: secretNamespace, else the claim's namespace
  if (spec.azureFile?.secretName) out.push(`${(spec.azureFile.secretNamespace as string) || claimNs}/${spec.azureFile.secretName as string}`);
  for (const src of ['cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos']) ref(spec[src]?.secretRef, claimNs);
  for (const f of ['controllerPublishSecretRef', 'nodeStageSecretRef', 'nodePublishSecretRef', 'controllerExpandSecretRef', 'nodeExpandSecretRef']) ref(spec.csi?.[f], '');
  return out.filter((k) => !k.startsWith('/'));
}

export class NodeGraph {
  private readonly caches: AdmissionCache[] = [];
  private readonly pods = new Map<string, PodEntry>();
  /** `type/namespace/name` of what pods name → node → count */
  private readonly podRefs = new RefCounts();
  private readonly pvs = new Map<string, { claim: string; secrets: string[] }>();
  /** secret `namespace/name` → the PVs that name it */
  private readonly pvSecrets = new Map<string, Set<string>>();
  private readonly attachments = new Map<string, string>();

  constructor(lookup: (group: string, plural: string) => ResourceStore | undefined) {
    const follow = (group: string, plural: string, on: (ns: string, name: string, o: KObject | undefined) => void) => {
      if (!lookup(group, plural)) return;
      const c = new AdmissionCache(() => lookup(group, plural)!);
      c.onObject = on;
      this.caches.push(c);
    };
    follow('', 'pods', (ns, name, o) => this.setPod(ns, name, o));
    follow('', 'persistentvolumes', (_ns, name, o) => this.setPV(name, o));
    follow('storage.k8s.io', 'volumeattachments', (_ns, name, o) => this.setAttachment(name, o));
  }

  /** Resolves once every cache follows its store. */
  async start(): Promise<void> {
    await Promise.all(this.caches.map((c) => c.start()));
  }

  stop(): void {
    for (const c of this.caches) c.stop();
    for (const m of [this.pods, this.pvs, this.pvSecrets, this.attachments, this.podRefs]) m.clear();
  }

  /** Whether a path leads from the object to the node (kube's hasPathFrom). */
  hasPath(node: string, type: VertexType, namespace: string, name: string): boolean {
    switch (type) {
      case 'pod':
        return this.pods.get(`${namespace}/${name}`)?.node === node;
      case 'volumeattachment':
        return this.attachments.get(name) === node;
      case 'pv': {
        const claim = this.pvs.get(name)?.claim;
        return !!claim && this.podRefs.has(`pvc/${claim}`, node);
      }
      case 'secret':
        if (this.podRefs.has(`secret/${namespace}/${name}`, node)) return true;
        for (const pv of this.pvSecrets.get(`${namespace}/${name}`) ?? []) if (this.hasPath(node, 'pv', '', pv)) return true;
        return false;
      default:
        return this.podRefs.has(`${type}/${namespace}/${name}`, node);
    }
  }

  private setPod(ns: string, name: string, pod: KObject | undefined): void {
    const key = `${ns}/${name}`;
    const old = this.pods.get(key);
    if (old) for (const r of old.refs) this.podRefs.remove(r, old.node);
    this.pods.delete(key);
    const node = (pod as { spec?: { nodeName?: string } } | undefined)?.spec?.nodeName;
    // an unbound pod relates to no node yet
    if (!pod || !node) return;
    const r = podReferences(pod);
    const refs = [`pod/${key}`];
    for (const [type, names] of [['secret', r.secrets], ['configmap', r.configMaps], ['pvc', r.claims], ['resourceclaim', r.resourceClaims]] as const) {
      for (const n of names) refs.push(`${type}/${ns}/${n}`);
    }
    if (r.serviceAccount) refs.push(`serviceaccount/${ns}/${r.serviceAccount}`);
    for (const ref of refs) this.podRefs.add(ref, node);
    this.pods.set(key, { node, refs });
  }

  private setPV(name: string, pv: KObject | undefined): void {
    const old = this.pvs.get(name);
    if (old) for (const s of old.secrets) this.pvSecrets.get(s)?.delete(name);
    this.pvs.delete(name);
    if (!pv) return;
    const ref = (pv as { spec?: { claimRef?: { namespace?: string; name?: string } } }).spec?.claimRef;
    const claim = ref?.name ? `${ref.namespace ?? ''}/${ref.name}` : '';
    const secrets = pvSecretKeys(pv);
    this.pvs.set(name, { claim, secrets });
    for (const s of secrets) setAdd(this.pvSecrets, s, name);
  }

  private setAttachment(name: string, va: KObject | undefined): void {
    const node = (va as { spec?: { nodeName?: string } } | undefined)?.spec?.nodeName;
    if (node) this.attachments.set(name, node);
    else this.attachments.delete(name);
  }
}

function setAdd(m: Map<string, Set<string>>, key: string, v: string): void {
  let s = m.get(key);
  if (!s) m.set(key, (s = new Set()));
  s.add(v);
}
