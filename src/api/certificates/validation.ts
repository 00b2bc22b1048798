// CertificateSigningRequest validation: pkg/apis/certificates/validation/validation.go (create, update, status and
// approval variants with their compatibility options) and ValidateSignerName from pkg/apis/core/validation.
import { FieldError } from '../../machinery/errors.js';
import { byteLength, compareGoStrings, isDNS1123Label, isDNS1123Subdomain } from '../../machinery/validation.js';
import { certificateError, csrRequestError } from './csr-parse.js';
import { KEY_USAGES, type CertificateSigningRequest, type CSRCondition } from './schema.js';
import { jsonEqual } from '../format.js';
import { goBytes, orEmpty } from '../networking/util.js';

export const LEGACY_UNKNOWN_SIGNER = 'kubernetes.io/legacy-unknown';
const TRUE_ONLY_TYPES = ['Approved', 'Denied', 'Failed'];
const ALL_STATUSES = ['False', 'True', 'Unknown'];
const SORTED_USAGES = [...KEY_USAGES].sort(compareGoStrings);

export interface CSRValidationOptions {
  allowSettingApprovalConditions?: boolean;
  allowSettingCertificate?: boolean;
  allowBothApprovedAndDenied?: boolean;
  allowLegacySignerName?: boolean;
  allowDuplicateConditionTypes?: boolean;
  allowEmptyConditionType?: boolean;
  allowArbitraryCertificate?: boolean;
  allowUnknownUsages?: boolean;
  allowDuplicateUsages?: boolean;
}

const bytesOf = (b64: string | null | undefined) => Buffer.from(b64 ?? '', 'base64');

/** ValidateSignerName: `<domain>/<path>`, at most 571 characters. */
export function validateSignerName(path: string, signer: string): FieldError[] {
  if (signer === '') return [FieldError.required(path, '')];
  const parts = signer.split('/');
  if (parts.length !== 2) return [FieldError.invalid(path, signer, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, rest] = parts;
  const errs: FieldError[] = [];
  if (byteLength(domain) > 253) errs.push(FieldError.tooLong(path, '', 253));
  const labels = domain.split('.');
  for (const l of labels) {
    const e = isDNS1123Label(l);
    if (e.length) {
      errs.push(...e.map((m) => FieldError.invalid(path, domain, `validating label "${l}": ${m}`)));
      break;
    }
  }
  if (labels.length < 2) errs.push(FieldError.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const l of rest.split('.')) {
    const e = isDNS1123Subdomain(l);
    if (e.length) {
      errs.push(...e.map((m) => FieldError.invalid(path, rest, `validating label "${l}": ${m}`)));
      break;
    }
  }
  const max = 253 + (253 + 63 + 1) + 1;
  if (byteLength(signer) > max) errs.push(FieldError.tooLong(path, '', max));
  return errs;
}

function validateConditions(csr: CertificateSigningRequest, opts: CSRValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  orEmpty(csr.status?.conditions).forEach((c0, i) => {
    const c = c0 ?? {};
    const p = `status.conditions[${i}]`;
    const type = c.type ?? '';
    const status = c.status ?? '';
    if (!opts.allowEmptyConditionType && type === '') errs.push(FieldError.required(`${p}.type`, ''));
    const allowed = TRUE_ONLY_TYPES.includes(type) ? ['True'] : ALL_STATUSES;
    if (status === '') errs.push(FieldError.required(`${p}.status`, ''));
    else if (!allowed.includes(status)) errs.push(FieldError.notSupported(`${p}.status`, status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      const exclusive = 'Approved and Denied conditions are mutually exclusive';
      if (type === 'Approved') {
        approved = true;
        if (denied) errs.push(FieldError.invalid(`${p}.type`, type, exclusive));
      } else if (type === 'Denied') {
        denied = true;
        if (approved) errs.push(FieldError.invalid(`${p}.type`, type, exclusive));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push(FieldError.duplicate(`${p}.type`, type));
      seen.add(type);
    }
  });
  return errs;
}

/** validateCertificateSigningRequest. */
export function validateCSR(csr: CertificateSigningRequest, opts: CSRValidationOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  const spec = csr.spec ?? {};
  const reqErr = csrRequestError(bytesOf(spec.request));
  if (reqErr) errs.push(FieldError.invalid('spec.request', goBytes(spec.request), reqErr));
  const usages = orEmpty(spec.usages);
  if (!usages.length) errs.push(FieldError.required('spec.usages', ''));
  if (!opts.allowUnknownUsages) {
    usages.forEach((u, i) => {
      if (!KEY_USAGES.includes(u)) errs.push(FieldError.notSupported(`spec.usages[${i}]`, u, SORTED_USAGES));
    });
  }
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((u, i) => {
      if (seen.has(u)) errs.push(FieldError.duplicate(`spec.usages[${i}]`, u));
      seen.add(u);
    });
  }
  const signer = spec.signerName ?? '';
  if (!opts.allowLegacySignerName && signer === LEGACY_UNKNOWN_SIGNER) {
    errs.push(FieldError.invalid('spec.signerName', signer, 'the legacy signerName is not allowed via this API version'));
  } else errs.push(...validateSignerName('spec.signerName', signer));
  if (spec.expirationSeconds != null && spec.expirationSeconds < 600) {
    errs.push(FieldError.invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(csr, opts));
  if (!opts.allowArbitraryCertificate) {
    const certErr = certificateError(bytesOf(csr.status?.certificate));
    if (certErr) errs.push(FieldError.invalid('status.certificate', '<certificate data>', certErr));
  }
  return errs;
}

const conditionsOf = (csr: CertificateSigningRequest, type: string): CSRCondition[] => orEmpty(csr.status?.conditions).filter((c) => c?.type === type);

/** validateCertificateSigningRequestUpdate (without the metadata checks the generic server makes). */
export function validateCSRUpdate(csr: CertificateSigningRequest, old: CertificateSigningRequest, opts: CSRValidationOptions): FieldError[] {
  const errs = validateCSR(csr, opts);
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (conditionsOf(csr, t).length < conditionsOf(old, t).length) {
      errs.push(FieldError.forbidden('status.conditions', `updates may not remove a condition of type "${t}"`));
    }
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const t of ['Approved', 'Denied']) {
      const before = conditionsOf(old, t);
      const after = conditionsOf(csr, t);
      if (after.length > before.length) errs.push(FieldError.forbidden('status.conditions', `updates may not add a condition of type "${t}"`));
      else if (after.length === before.length && !jsonEqual(before, after)) {
        // Kubernetes appends a go-cmp diff; a JSON before/after stands in for it.
        const diff = `- ${JSON.stringify(before)}\n+ ${JSON.stringify(after)}`;
        errs.push(FieldError.forbidden('status.conditions', `updates may not modify a condition of type "${t}"\n${diff}`));
      }
    }
  }
  if (!bytesOf(csr.status?.certificate).equals(bytesOf(old.status?.certificate))) {
    if (!opts.allowSettingCertificate) errs.push(FieldError.forbidden('status.certificate', 'updates may not set certificate content'));
    else if (bytesOf(old.status?.certificate).length > 0) {
      errs.push(FieldError.forbidden('status.certificate', 'updates may not modify existing certificate content'));
    }
  }
  return errs;
}

/** getValidationOptions: tolerate problems already present in the stored object (old undefined on create). */
export function csrValidationOptions(csr: CertificateSigningRequest, old?: CertificateSigningRequest): CSRValidationOptions {
  if (!old) return {};
  const types = orEmpty(old.status?.conditions).map((c) => c?.type ?? '');
  const usages = orEmpty(old.spec?.usages);
  const sameCert = bytesOf(csr.status?.certificate).equals(bytesOf(old.status?.certificate));
  return {
    allowBothApprovedAndDenied: types.includes('Approved') && types.includes('Denied'),
    allowLegacySignerName: old.spec?.signerName === LEGACY_UNKNOWN_SIGNER,
    allowDuplicateConditionTypes: new Set(types).size !== types.length,
    allowEmptyConditionType: types.includes(''),
    allowArbitraryCertificate: sameCert || certificateError(bytesOf(old.status?.certificate)) !== undefined,
    allowDuplicateUsages: new Set(usages).size !== usages.length,
    allowUnknownUsages: usages.some((u) => !KEY_USAGES.includes(u)),
  };
}
