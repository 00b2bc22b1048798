// kube-controller-manager's csrsigning controllers (pkg/controller/certificates/signer): approved requests for the
// kubernetes.io/kube-apiserver-client, kube-apiserver-client-kubelet and kubelet-serving signers are signed by the
// cluster CA; a request the signer does not accept gets a Failed condition (SignerValidationFailure). Other signers
// (kubernetes.io/legacy-unknown included, which the v1 API refuses anyway) are left to whoever implements them.
import type { CertificateSigningRequest } from '../../api/certificates/schema.js';
import { csrRequestError } from '../../api/certificates/csr-parse.js';
import type { KObject } from '../../api/types.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import { splitKey } from '../../client/informer.js';
import { rfc3339 } from '../../machinery/object.js';
import type { CertKeyPem } from '../../pki/certs.js';
import { signCertificateRequest } from '../../pki/csr-sign.js';
import { hasTrueCondition, isApproved, parseCSR, requestPem } from './conditions.js';
import { certificateDurationMs, DEFAULT_SIGNING_DURATION_MS, SIGNERS, signerValidationError } from './signer-policy.js';

const CSR_API = ['certificates.k8s.io/v1', 'certificatesigningrequests'] as const;
const BACKDATE_MS = 5 * 60_000;
const SHORT_MS = 8 * 3600_000;

export interface CSRSigningOptions {
  /** the cluster CA: certificate and key (kept here, never in an API object) */
  ca: CertKeyPem;
  /** --cluster-signing-duration (default 8760h) */
  durationMs?: number;
}

class CSRSigningController extends Reconciler {
  readonly name = 'csrsigning';

  constructor(
    ctx: ControllerContext,
    private readonly opts: CSRSigningOptions,
  ) {
    super(ctx);
  }

  setup(): void {
    this.watchOwn(this.informer(...CSR_API));
  }

  async reconcile(key: string): Promise<void> {
    const csr = this.informer(...CSR_API).get('', splitKey(key).name) as CertificateSigningRequest | undefined;
    if (!csr || csr.status?.certificate) return;
    if (!isApproved(csr) || hasTrueCondition(csr, 'Failed')) return;
    const signer = csr.spec?.signerName ?? '';
    if (!(SIGNERS as readonly string[]).includes(signer)) return;
    const { req } = await parseCSR(csr);
    const usages = csr.spec?.usages ?? [];
    const invalid = signerValidationError(signer, req, usages);
    const next = structuredClone(csr);
    next.status ??= {};
    if (invalid) {
      next.status.conditions = [
        ...(next.status.conditions ?? []),
        { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: invalid, lastUpdateTime: rfc3339() },
      ];
      await this.updateStatus(next, 'error adding failure condition for csr');
      return;
    }
    // CertificateAuthority.Sign checks the request's signature again
    const sigErr = csrRequestError(requestPem(csr));
    if (sigErr) throw new Error(`error auto signing csr: unable to verify certificate request signature: ${sigErr}`);
    let pem: string;
    try {
      pem = await signCertificateRequest(this.opts.ca, req, {
        usages,
        ttlMs: certificateDurationMs(csr.spec?.expirationSeconds, this.opts.durationMs ?? DEFAULT_SIGNING_DURATION_MS),
        backdateMs: BACKDATE_MS,
        shortMs: SHORT_MS,
        now: new Date(this.ctx.now()),
      });
    } catch (e) {
      throw new Error(`error auto signing csr: ${(e as Error).message}`);
    }
    next.status.certificate = Buffer.from(pem).toString('base64');
    await this.updateStatus(next, 'error updating signature for csr');
  }

  private async updateStatus(csr: CertificateSigningRequest, what: string): Promise<void> {
    try {
      await this.ctx.client.resource(...CSR_API).update('', csr as KObject, { subresource: 'status' });
    } catch (e) {
      throw new Error(`${what}: ${(e as Error).message}`);
    }
  }
}

/** Signs approved CSRs of the kubernetes.io signers with the cluster CA. */
export function csrSigningController(opts: CSRSigningOptions): ControllerFactory {
  return (ctx) => new CSRSigningController(ctx, opts);
}
