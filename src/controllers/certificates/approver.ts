// kube-controller-manager's csrapproving controller (pkg/controller/certificates/approver/sarapprove.go): a kubelet
// client CSR (signer kubernetes.io/kube-apiserver-client-kubelet, CN system:node:…, O system:nodes, client usages)
// is approved when a SubjectAccessReview says its requester may create certificatesigningrequests/selfnodeclient
// (renewing its own: the requester is the CN) or certificatesigningrequests/nodeclient (any node). Not approved:
// asked again later, with growing pauses, so a binding added meanwhile still approves it. k1s also approves a node's
// own kubelet-serving request for its Node's names and addresses (serving-approval.ts), which kube leaves to people,
// and a node's request for its add-ons' credential (addons-approval.ts).
import type { CertificateSigningRequest } from '../../api/certificates/schema.js';
import type { KObject } from '../../api/types.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import { splitKey } from '../../client/informer.js';
import type { ReconcileResult } from '../../client/workqueue.js';
import type { ParsedRequest } from '../../pki/csr-sign.js';
import { approvalOf, parseCSR } from './conditions.js';
import { KUBE_APISERVER_CLIENT_KUBELET_SIGNER, kubeletClientError } from './signer-policy.js';
import { ADDONS_APPROVAL_MESSAGE, isNodeAddonsRequest } from './addons-approval.js';
import { SERVING_APPROVAL_MESSAGE, servingNamesAreNodes, servingRequestNode } from './serving-approval.js';

const CSR_API = ['certificates.k8s.io/v1', 'certificatesigningrequests'] as const;

interface Recognizer {
  subresource: 'selfnodeclient' | 'nodeclient';
  recognize(csr: CertificateSigningRequest, req: ParsedRequest): boolean;
  message: string;
}

const isNodeClient = (csr: CertificateSigningRequest, req: ParsedRequest) =>
  csr.spec?.signerName === KUBE_APISERVER_CLIENT_KUBELET_SIGNER && kubeletClientError(req, csr.spec?.usages ?? []) === undefined;

const RECOGNIZERS: Recognizer[] = [
  {
    subresource: 'selfnodeclient',
    recognize: (csr, req) => csr.spec?.username === req.commonName && isNodeClient(csr, req),
    message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
  },
  { subresource: 'nodeclient', recognize: isNodeClient, message: 'Auto approving kubelet client certificate after SubjectAccessReview.' },
];

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 5 * 60_000;

class CSRApprovingController extends Reconciler {
  readonly name = 'csrapproving';
  private readonly retries = new Map<string, number>();

  constructor(ctx: ControllerContext) {
    super(ctx);
  }

  setup(): void {
    this.watchOwn(this.informer(...CSR_API));
    // serving requests are checked against their Node's addresses
    this.informer('v1', 'nodes');
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const csr = this.informer(...CSR_API).get('', splitKey(key).name) as CertificateSigningRequest | undefined;
    const { approved, denied } = csr ? approvalOf(csr) : { approved: false, denied: false };
    if (!csr || csr.status?.certificate || approved || denied) {
      this.retries.delete(key);
      return;
    }
    const { req } = await parseCSR(csr);
    const servingNode = servingRequestNode(csr, req);
    if (servingNode !== undefined) return this.approveServing(key, csr, req, servingNode);
    if (isNodeAddonsRequest(csr, req)) return this.approve(key, csr, ADDONS_APPROVAL_MESSAGE);
    const tried: string[] = [];
    for (const r of RECOGNIZERS) {
      if (!r.recognize(csr, req)) continue;
      tried.push(r.subresource);
      if (!(await this.authorize(csr, r.subresource))) continue;
      await this.approve(key, csr, r.message);
      return;
    }
    if (!tried.length) return;
    // kube: an ignorable error ("recognized csr … but subject access review was not approved"), retried with back-off
    return this.retry(key);
  }

  /** a node's serving CSR: approved once its Node exists and has every address the request names */
  private async approveServing(key: string, csr: CertificateSigningRequest, req: ParsedRequest, nodeName: string): Promise<ReconcileResult | void> {
    const node = this.informer('v1', 'nodes').get('', nodeName);
    if (!node || !servingNamesAreNodes(req, nodeName, node as object)) return this.retry(key);
    await this.approve(key, csr, SERVING_APPROVAL_MESSAGE);
  }

  private async approve(key: string, csr: CertificateSigningRequest, message: string): Promise<void> {
    const next = structuredClone(csr);
    next.status = { ...next.status, conditions: [...(next.status?.conditions ?? []), { type: 'Approved', status: 'True', reason: 'AutoApproved', message }] };
    try {
      await this.ctx.client.resource(...CSR_API).update('', next as KObject, { subresource: 'approval' });
    } catch (e) {
      throw new Error(`error updating approval for csr: ${(e as Error).message}`);
    }
    this.retries.delete(key);
  }

  private retry(key: string): ReconcileResult {
    const n = this.retries.get(key) ?? 0;
    this.retries.set(key, n + 1);
    return { requeueAfterMs: Math.min(FIRST_RETRY_MS * 2 ** n, MAX_RETRY_MS) };
  }

  private async authorize(csr: CertificateSigningRequest, subresource: string): Promise<boolean> {
    const spec = csr.spec ?? {};
    const review = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: {
        user: spec.username,
        uid: spec.uid,
        groups: spec.groups ?? undefined,
        extra: spec.extra ?? undefined,
        resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource },
      },
    };
    const res = (await this.ctx.client.resource('authorization.k8s.io/v1', 'subjectaccessreviews').create('', review as unknown as KObject)) as KObject & {
      status?: { allowed?: boolean };
    };
    return res.status?.allowed === true;
  }
}

/** Auto-approves kubelet client CSRs whose requesters RBAC allows to (nodeclient / selfnodeclient). */
export function csrApprovingController(): ControllerFactory {
  return (ctx) => new CSRApprovingController(ctx);
}
