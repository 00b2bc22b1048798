// The kubelet API's authorization as kube's kubelet delegates it (--authorization-mode=Webhook): every request of an
// authenticated client is put to the API server as a SubjectAccessReview on the node's subresource for its path
// (pkg/kubelet/server/auth.go: /metrics → nodes/metrics, /stats → nodes/stats, /logs → nodes/log, /spec →
// nodes/spec, everything else nodes/proxy), with decisions cached as the kubelet does (5 min allowed, 30 s denied).
import type { KObject } from '../api/types.js';
import type { Client } from '../client/types.js';
import type { PeerIdentity } from '../pki/client-auth.js';

export interface KubeletRequestAttributes {
  verb: string;
  subresource: string;
}

export type KubeletAuthorizer = (user: PeerIdentity, attrs: KubeletRequestAttributes) => Promise<boolean>;

const verbs: Record<string, string> = { GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** the verb and nodes subresource a kubelet request is authorized as */
export function kubeletAttributes(method: string, path: string): KubeletRequestAttributes {
  const verb = verbs[method.toUpperCase()] ?? method.toLowerCase();
  const under = (p: string) => path === p || path.startsWith(`${p}/`);
  const subresource = under('/stats') ? 'stats' : under('/metrics') ? 'metrics' : under('/logs') ? 'log' : under('/spec') ? 'spec' : 'proxy';
  return { verb, subresource };
}

/** kube's kubelet's 403 body */
export function forbiddenMessage(user: PeerIdentity, a: KubeletRequestAttributes): string {
  return `Forbidden (user=${user.user}, verb=${a.verb}, resource=nodes, subresource(s)=[${a.subresource}])\n`;
}

const ALLOWED_TTL_MS = 5 * 60_000;
const DENIED_TTL_MS = 30_000;

/** SubjectAccessReviews through the kubelet's own client (its node identity may create them). */
export function subjectAccessReviewAuthorizer(client: Client, nodeName: string, now: () => number = Date.now): KubeletAuthorizer {
  const cache = new Map<string, { allowed: boolean; until: number }>();
  const reviews = client.resource('authorization.k8s.io/v1', 'subjectaccessreviews');
  return async (user, a) => {
    const key = JSON.stringify([user.user, user.groups, a.verb, a.subresource]);
    const hit = cache.get(key);
    if (hit && hit.until > now()) return hit.allowed;
    const review = await reviews.create('', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: { user: user.user, groups: user.groups, resourceAttributes: { verb: a.verb, resource: 'nodes', subresource: a.subresource, name: nodeName } },
    } as KObject);
    const allowed = (review as { status?: { allowed?: boolean } }).status?.allowed === true;
    if (cache.size > 1000) cache.clear();
    cache.set(key, { allowed, until: now() + (allowed ? ALLOWED_TTL_MS : DENIED_TTL_MS) });
    return allowed;
  };
}
