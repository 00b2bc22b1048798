// The CSR condition helpers the certificate controllers share (pkg/controller/certificates/certificate_controller_utils.go)
// and ParseCSR's error texts.
import { pemDecode } from '../../api/certificates/csr-parse.js';
import type { CertificateSigningRequest } from '../../api/certificates/schema.js';
import { parseCertificateRequest, type ParsedRequest } from '../../pki/csr-sign.js';

const conditions = (csr: CertificateSigningRequest) => csr.status?.conditions ?? [];

/** GetCertApprovalCondition: any Approved / Denied condition, whatever its status. */
export function approvalOf(csr: CertificateSigningRequest): { approved: boolean; denied: boolean } {
  const types = conditions(csr).map((c) => c?.type);
  return { approved: types.includes('Approved'), denied: types.includes('Denied') };
}

/** IsCertificateRequestApproved */
export function isApproved(csr: CertificateSigningRequest): boolean {
  const { approved, denied } = approvalOf(csr);
  return approved && !denied;
}

/** HasTrueCondition: a condition of the type whose status is True or empty. */
export function hasTrueCondition(csr: CertificateSigningRequest, type: string): boolean {
  return conditions(csr).some((c) => c?.type === type && (!c.status || c.status === 'True'));
}

/** The PEM of spec.request, decoded. */
export function requestPem(csr: CertificateSigningRequest): Buffer {
  return Buffer.from(csr.spec?.request ?? '', 'base64');
}

/** capihelper.ParseCSR, failing as the controllers report it: `unable to parse csr "<name>": …`. */
export async function parseCSR(csr: CertificateSigningRequest): Promise<{ req: ParsedRequest; der: Buffer }> {
  const fail = (msg: string) => new Error(`unable to parse csr "${csr.metadata.name}": ${msg}`);
  const decoded = pemDecode(requestPem(csr).toString('latin1'));
  if (!decoded || decoded.block.type !== 'CERTIFICATE REQUEST') throw fail('PEM block type must be CERTIFICATE REQUEST');
  try {
    return { req: await parseCertificateRequest(decoded.block.bytes), der: decoded.block.bytes };
  } catch (e) {
    throw fail((e as Error).message);
  }
}
