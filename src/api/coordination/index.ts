// coordination.k8s.io/v1 Lease: pkg/registry/coordination/lease/strategy.go, ValidateLeaseSpec in
// pkg/apis/coordination/validation/validation.go, printLease in pkg/printers/internalversion/printers.go.
import { FieldError } from '../../machinery/errors.js';
import { s, type Definitions } from '../../machinery/schema.js';
import { isQualifiedName } from '../../machinery/validation.js';
import { ageColumn, nameColumn } from '../format.js';
import { kindHeader, listDefinition } from '../meta.js';
import { defineResource, type KObject } from '../types.js';

const CO = 'io.k8s.api.coordination.v1.';

export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number | null;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number | null;
  strategy?: string | null;
  preferredHolder?: string | null;
}

export interface Lease extends KObject {
  spec?: LeaseSpec;
}

const VALID_STRATEGIES = ['OldestEmulationVersion'];

export const coordinationDefinitions: Definitions = {
  [`${CO}Lease`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(
        `${CO}LeaseSpec`,
        'spec contains the specification of the Lease. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status',
        { default: {} },
      ),
    },
    { description: 'Lease defines a lease concept.' },
  ),
  [`${CO}LeaseSpec`]: s.obj(
    {
      acquireTime: s.microTime('acquireTime is a time when the current lease was acquired.'),
      holderIdentity: s.str(
        'holderIdentity contains the identity of the holder of a current lease. With Coordinated Leader Election it must equal the elected LeaseCandidate.metadata.name.',
      ),
      leaseDurationSeconds: s.int32(
        'leaseDurationSeconds is how long candidates for a lease must wait before they may force-acquire it, measured from the last observed renewTime.',
      ),
      leaseTransitions: s.int32('leaseTransitions is the number of transitions of a lease between holders.'),
      preferredHolder: s.str(
        'PreferredHolder signals to a lease holder that the lease has a more optimal holder and should be given up. This field can only be set if Strategy is also set.',
      ),
      renewTime: s.microTime('renewTime is a time when the current holder of a lease has last updated the lease.'),
      strategy: s.str(
        'Strategy indicates the strategy for picking the leader for coordinated leader election. If the field is not specified, there is no active coordination for this lease. (Alpha) Using this field requires the CoordinatedLeaderElection feature gate to be enabled.',
      ),
    },
    { description: 'LeaseSpec is a specification of a Lease.' },
  ),
  [`${CO}LeaseList`]: listDefinition(`${CO}Lease`, 'LeaseList is a list of Lease objects.', 'items is a list of schema objects.'),
};

function validateLeaseSpec(spec: LeaseSpec | undefined): FieldError[] {
  const errs: FieldError[] = [];
  if (!spec) return errs;
  if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds <= 0)
    errs.push(FieldError.invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  if (typeof spec.leaseTransitions === 'number' && spec.leaseTransitions < 0)
    errs.push(FieldError.invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  if (typeof spec.strategy === 'string') {
    // ValidateCoordinatedLeaseStrategy appends "strategy" to a path that already ends in it; kept as is.
    const path = 'spec.strategy.strategy';
    if (!spec.strategy.includes('/')) {
      if (!VALID_STRATEGIES.includes(spec.strategy)) errs.push(FieldError.notSupported(path, spec.strategy, VALID_STRATEGIES));
    } else for (const msg of isQualifiedName(spec.strategy)) errs.push(FieldError.invalid(path, spec.strategy, msg));
  }
  if (spec.preferredHolder && !spec.strategy)
    errs.push(FieldError.forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  return errs;
}

export const leaseResource = defineResource<Lease>({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  singular: 'lease',
  namespaced: true,
  schemaRef: `${CO}Lease`,
  definitions: coordinationDefinitions,
  columns: [
    nameColumn(),
    {
      name: 'Holder',
      type: 'string',
      description: coordinationDefinitions[`${CO}LeaseSpec`].properties!.holderIdentity.description!,
      cell: (o) => o.spec?.holderIdentity ?? '',
    },
    ageColumn(),
  ],
  strategy: {
    defaults(lease) {
      lease.spec ??= {};
    },
    // The CoordinatedLeaderElection gate is off by default in 1.33: its fields are dropped unless already in use.
    prepareForCreate(lease) {
      if (lease.spec) {
        delete lease.spec.strategy;
        delete lease.spec.preferredHolder;
      }
    },
    prepareForUpdate(lease, old) {
      if (!lease.spec) return;
      if (old.spec?.strategy == null) delete lease.spec.strategy;
      if (old.spec?.preferredHolder == null) delete lease.spec.preferredHolder;
    },
    // ValidateLeaseUpdate repeats the spec checks (validate runs on updates too) plus metadata ones.
    validate: (lease) => validateLeaseSpec(lease.spec),
    allowCreateOnUpdate: true,
  },
});
