// certificates.k8s.io/v1 CertificateSigningRequest: pkg/registry/certificates/certificates/strategy.go (main,
// status and approval strategies), validation in validation.ts, printCertificateSigningRequest.
import type { Definitions } from '../../machinery/schema.js';
import { rfc3339 } from '../../machinery/object.js';
import { validatePathSegmentName } from '../../machinery/validation.js';
import { ageColumn, CELL_NONE, humanDuration, nameColumn, parseTime } from '../format.js';
import { CERT, certificatesDefinitions as csrDefinitions, type CertificateSigningRequest, type CSRCondition } from './schema.js';
import { csrValidationOptions, validateCSR, validateCSRUpdate } from './validation.js';
import { isCreate, orEmpty } from '../networking/util.js';
import { defineResource, type RequestUser, type ResourceDefinition } from '../types.js';

export type { CertificateSigningRequest } from './schema.js';

/**
 * Sets spec.username/uid/groups/extra from the requesting user, as PrepareForCreate does with the request's user
 * (the strategy has none). Call it on every create after prepareForCreate, e.g. from a CREATE admission plugin.
 */
export function fillRequester(csr: CertificateSigningRequest, user: RequestUser): void {
  const spec = (csr.spec ??= {});
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  // Go's omitempty drops the empty ones.
  if (user.name) spec.username = user.name;
  if (user.uid) spec.uid = user.uid;
  if (user.groups.length) spec.groups = [...user.groups];
  const extra = Object.entries(user.extra ?? {});
  if (extra.length) spec.extra = Object.fromEntries(extra.map(([k, v]) => [k, [...v]]));
}

/** extractCSRStatus: Denied > Approved > Pending, then ",Failed" and ",Issued". */
export function csrCondition(csr: CertificateSigningRequest): string {
  const types = new Set(orEmpty(csr.status?.conditions).map((c) => c?.type));
  let s = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) s += ',Failed';
  if (csr.status?.certificate) s += ',Issued';
  return s;
}

/** populateConditionTimestamps: lastUpdateTime now if unset; lastTransitionTime kept from an old condition of the same type and status. */
function populateConditionTimestamps(csr: CertificateSigningRequest, old: CertificateSigningRequest): void {
  const now = rfc3339();
  for (const c of orEmpty(csr.status?.conditions)) {
    if (!c || typeof c !== 'object') continue;
    if (parseTime(c.lastUpdateTime) === undefined) c.lastUpdateTime = now;
    if (parseTime(c.lastTransitionTime) === undefined) {
      const prev = orEmpty(old.status?.conditions).find(
        (o) => o?.type === c.type && o?.status === c.status && parseTime(o?.lastTransitionTime) !== undefined,
      );
      c.lastTransitionTime = prev?.lastTransitionTime ?? now;
    }
  }
}

/** preserveConditionInstances: the status subresource may not change Approved/Denied conditions. */
function preserveConditions(csr: CertificateSigningRequest, old: CertificateSigningRequest, type: string): void {
  const oldIdx = orEmpty(old.status?.conditions).flatMap((c, i) => (c?.type === type ? [i] : []));
  const conds = orEmpty(csr.status?.conditions);
  const newIdx = conds.flatMap((c, i) => (c?.type === type ? [i] : []));
  if (oldIdx.length !== newIdx.length) return; // added or removed: validation reports it
  oldIdx.forEach((o, i) => (conds[newIdx[i]] = structuredClone(old.status!.conditions![o]) as CSRCondition));
}

export const certificateSigningRequestResource = defineResource<CertificateSigningRequest>({
  group: 'certificates.k8s.io',
  version: 'v1',
  kind: 'CertificateSigningRequest',
  plural: 'certificatesigningrequests',
  singular: 'certificatesigningrequest',
  shortNames: ['csr'],
  namespaced: false,
  schemaRef: `${CERT}CertificateSigningRequest`,
  definitions: csrDefinitions,
  subresources: { status: true, extra: ['approval'] },
  columns: [
    nameColumn(),
    ageColumn(),
    {
      name: 'SignerName',
      type: 'string',
      description: csrDefinitions[`${CERT}CertificateSigningRequestSpec`].properties!.signerName.description!,
      cell: (o) => o.spec?.signerName || CELL_NONE,
    },
    {
      name: 'Requestor',
      type: 'string',
      description: csrDefinitions[`${CERT}CertificateSigningRequestSpec`].properties!.request.description!,
      cell: (o) => o.spec?.username ?? '',
    },
    {
      name: 'RequestedDuration',
      type: 'string',
      description: csrDefinitions[`${CERT}CertificateSigningRequestSpec`].properties!.expirationSeconds.description!,
      cell: (o) => (o.spec?.expirationSeconds != null ? humanDuration(o.spec.expirationSeconds * 1000) : CELL_NONE),
    },
    {
      name: 'Condition',
      type: 'string',
      description: csrDefinitions[`${CERT}CertificateSigningRequestStatus`].properties!.conditions.description!,
      cell: (o) => csrCondition(o),
    },
  ],
  selectableFields: { 'spec.signerName': (o) => o.spec?.signerName ?? '' },
  strategy: {
    defaults(csr) {
      const spec = (csr.spec ??= {});
      // request and signerName have no omitempty: Go writes null / "" when unset.
      if (spec.request === undefined) spec.request = null;
      spec.signerName ??= '';
      csr.status ??= {};
    },
    prepareForCreate(csr) {
      // Requester fields come from the request's user only (fillRequester); no pre-approved requests.
      const spec = csr.spec!;
      delete spec.username;
      delete spec.uid;
      delete spec.groups;
      delete spec.extra;
      csr.status = {};
    },
    prepareForUpdate(csr, old) {
      // Requests are immutable except through the status and approval subresources.
      csr.spec = old.spec;
      csr.status = old.status;
    },
    validate: (csr) => (isCreate(csr) ? validateCSR(csr) : []),
    validateUpdate: (csr, old) => validateCSRUpdate(csr, old, csrValidationOptions(csr, old)),
    prepareForStatusUpdate(csr, old) {
      preserveConditions(csr, old, 'Approved');
      preserveConditions(csr, old, 'Denied');
      populateConditionTimestamps(csr, old);
    },
    validateStatusUpdate: (csr, old) => validateCSRUpdate(csr, old, { ...csrValidationOptions(csr, old), allowSettingCertificate: true }),
    prepareForSubresourceUpdate(_sub, csr, old) {
      // approval: only status.conditions change.
      populateConditionTimestamps(csr, old);
      const conditions = csr.status?.conditions;
      const status = { ...(old.status ?? {}) };
      if (conditions === undefined) delete status.conditions;
      else status.conditions = conditions;
      return { ...csr, spec: old.spec, status };
    },
    validateSubresourceUpdate: (_sub, csr, old) =>
      validateCSRUpdate(csr, old, { ...csrValidationOptions(csr, old), allowSettingApprovalConditions: true }),
    // ValidateCertificateRequestName accepts any name; only the generic path-segment rules apply.
    validateName: validatePathSegmentName,
    allowCreateOnUpdate: false,
  },
});

/** Every definition the certificates kinds need besides meta's. */
export const certificatesDefinitions: Definitions = { ...csrDefinitions };

export const certificatesResources: ResourceDefinition[] = [certificateSigningRequestResource];
