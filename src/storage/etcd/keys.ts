// Where k1s' keys live in etcd. k1s keys are /registry/<group or core>/<resource>/…; kube-apiserver lays built-in
// resources out as <prefix>/<resource>/… (with a few historical names: nodes are minions, Services specs) and other
// groups' resources as <prefix>/<group>/<resource>/…, so that etcdctl and etcd tools see what they expect. Only the
// resource part of a key is translated: within one resource, keys keep their order, so pages and continue tokens
// are the same as on SQLite. Keys outside the table go under <prefix>/_k1s/ unchanged, in their own order.

/** k1s' resource prefix → kube's etcd prefix (relative to the root), for k1s' built-in resources. */
const KUBE_LAYOUT: Record<string, string> = {
  'core/pods/': 'pods/',
  'core/nodes/': 'minions/',
  'core/services/': 'services/specs/',
  'core/endpoints/': 'services/endpoints/',
  'core/replicationcontrollers/': 'controllers/',
  'core/configmaps/': 'configmaps/',
  'core/secrets/': 'secrets/',
  'core/namespaces/': 'namespaces/',
  'core/serviceaccounts/': 'serviceaccounts/',
  'core/events/': 'events/',
  'core/limitranges/': 'limitranges/',
  'core/resourcequotas/': 'resourcequotas/',
  'core/persistentvolumes/': 'persistentvolumes/',
  'core/persistentvolumeclaims/': 'persistentvolumeclaims/',
  'core/podtemplates/': 'podtemplates/',
  'apps/deployments/': 'deployments/',
  'apps/replicasets/': 'replicasets/',
  'apps/statefulsets/': 'statefulsets/',
  'apps/daemonsets/': 'daemonsets/',
  'apps/controllerrevisions/': 'controllerrevisions/',
  'batch/jobs/': 'jobs/',
  'batch/cronjobs/': 'cronjobs/',
  'autoscaling/horizontalpodautoscalers/': 'horizontalpodautoscalers/',
  'policy/poddisruptionbudgets/': 'poddisruptionbudgets/',
  'coordination.k8s.io/leases/': 'leases/',
  'discovery.k8s.io/endpointslices/': 'endpointslices/',
  'networking.k8s.io/ingresses/': 'ingress/',
  'networking.k8s.io/ingressclasses/': 'ingressclasses/',
  'networking.k8s.io/networkpolicies/': 'networkpolicies/',
  'node.k8s.io/runtimeclasses/': 'runtimeclasses/',
  'scheduling.k8s.io/priorityclasses/': 'priorityclasses/',
  'storage.k8s.io/storageclasses/': 'storageclasses/',
  'storage.k8s.io/csidrivers/': 'csidrivers/',
  'storage.k8s.io/csinodes/': 'csinodes/',
  'storage.k8s.io/volumeattachments/': 'volumeattachments/',
  'certificates.k8s.io/certificatesigningrequests/': 'certificatesigningrequests/',
  'rbac.authorization.k8s.io/roles/': 'roles/',
  'rbac.authorization.k8s.io/rolebindings/': 'rolebindings/',
  'rbac.authorization.k8s.io/clusterroles/': 'clusterroles/',
  'rbac.authorization.k8s.io/clusterrolebindings/': 'clusterrolebindings/',
  'admissionregistration.k8s.io/validatingwebhookconfigurations/': 'validatingwebhookconfigurations/',
  'admissionregistration.k8s.io/mutatingwebhookconfigurations/': 'mutatingwebhookconfigurations/',
  'admissionregistration.k8s.io/validatingadmissionpolicies/': 'validatingadmissionpolicies/',
  'admissionregistration.k8s.io/validatingadmissionpolicybindings/': 'validatingadmissionpolicybindings/',
};

const REGISTRY = '/registry/';
/** where keys outside the table go: '_' starts no resource or group name */
const OTHER = '_k1s';

/** One etcd range for a k1s prefix, or none when the prefix spans several translations (read the whole root). */
export type EtcdRange = { start: string; end: Buffer } | undefined;

export class KeyLayout {
  /** k1s prefix → etcd prefix, both absolute */
  private readonly forward = new Map<string, string>();
  /** etcd prefix after the root → k1s prefix */
  private readonly reverse = new Map<string, string>();
  /** the root with its trailing '/' */
  readonly root: string;

  constructor(root = '/registry') {
    if (!root.startsWith('/')) throw new Error(`the etcd prefix must start with '/' (got ${JSON.stringify(root)})`);
    this.root = root.endsWith('/') ? root : `${root}/`;
    for (const [k1s, kube] of Object.entries(KUBE_LAYOUT)) {
      this.forward.set(REGISTRY + k1s, this.root + kube);
      this.reverse.set(kube, REGISTRY + k1s);
    }
  }

  /** The etcd key of a k1s key. */
  toEtcd(key: string): string {
    const m = this.translation(key);
    if (m) return m.etcd + key.slice(m.k1s.length);
    if (dottedGroup(key)) return this.root + key.slice(REGISTRY.length);
    return `${this.root}${OTHER}${key}`;
  }

  /** The k1s key of an etcd key, or undefined for a key k1s did not write (another program's, under the root). */
  fromEtcd(etcdKey: string): string | undefined {
    if (!etcdKey.startsWith(this.root)) return undefined;
    const rest = etcdKey.slice(this.root.length);
    if (rest.startsWith(`${OTHER}/`)) return rest.slice(OTHER.length);
    const first = rest.indexOf('/');
    if (first < 0) return undefined;
    const second = rest.indexOf('/', first + 1);
    const k1s =
      (second > 0 && this.reverse.get(rest.slice(0, second + 1))) || this.reverse.get(rest.slice(0, first + 1));
    let key: string;
    if (k1s) key = k1s + rest.slice(this.reverse.has(rest.slice(0, second + 1)) ? second + 1 : first + 1);
    else if (rest.slice(0, first).includes('.')) key = REGISTRY + rest;
    else return undefined;
    // only keys this layout writes: another writer's key under a translated name is not k1s'
    return this.toEtcd(key) === etcdKey ? key : undefined;
  }

  /** The etcd range holding exactly the k1s keys under prefix, in the same order; undefined when they are spread. */
  range(prefix: string): EtcdRange {
    const direct =
      this.translation(prefix) !== undefined ||
      (dottedGroup(prefix) && !this.spansTable(prefix)) ||
      (!prefix.startsWith(REGISTRY) && !REGISTRY.startsWith(prefix));
    if (!direct) return undefined;
    const start = this.toEtcd(prefix);
    return { start, end: prefixEnd(start) };
  }

  /** the whole root: every key k1s writes */
  rootRange(): { start: string; end: Buffer } {
    return { start: this.root, end: prefixEnd(this.root) };
  }

  private translation(key: string): { k1s: string; etcd: string } | undefined {
    if (!key.startsWith(REGISTRY)) return undefined;
    const g = key.indexOf('/', REGISTRY.length);
    const r = g < 0 ? -1 : key.indexOf('/', g + 1);
    if (r < 0) return undefined;
    const k1s = key.slice(0, r + 1);
    const etcd = this.forward.get(k1s);
    return etcd ? { k1s, etcd } : undefined;
  }

  /** whether some translated resource lies under prefix (so one range cannot hold it) */
  private spansTable(prefix: string): boolean {
    for (const k of this.forward.keys()) if (k.startsWith(prefix)) return true;
    return false;
  }
}

/** /registry/<group with a dot>/…: a custom resource's (or a dotted group outside the table): kept as it is */
function dottedGroup(key: string): boolean {
  if (!key.startsWith(REGISTRY)) return false;
  const g = key.indexOf('/', REGISTRY.length);
  return g > 0 && key.slice(REGISTRY.length, g).includes('.');
}

/** Exclusive end of the keys starting with prefix (etcd's range_end): the prefix with its last byte incremented. */
export function prefixEnd(prefix: string): Buffer {
  const b = Buffer.from(prefix, 'utf8');
  for (let i = b.length - 1; i >= 0; i--) {
    if (b[i]! < 0xff) {
      b[i] = b[i]! + 1;
      return b.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]); // every key
}
