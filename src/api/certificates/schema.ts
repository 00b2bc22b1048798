// certificates.k8s.io/v1 CertificateSigningRequest schema: staging/src/k8s.io/api/certificates/v1/types.go.
import { s, type Definitions } from '../../machinery/schema.js';
import { kindHeader, listDefinition } from '../meta.js';
import type { KObject } from '../types.js';

export const CERT = 'io.k8s.api.certificates.v1.';

export interface CSRCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string | null;
  lastTransitionTime?: string | null;
}
export interface CertificateSigningRequest extends KObject {
  spec?: {
    request?: string | null;
    signerName?: string;
    expirationSeconds?: number | null;
    usages?: string[] | null;
    username?: string;
    uid?: string;
    groups?: string[] | null;
    extra?: Record<string, string[]> | null;
  };
  status?: { conditions?: CSRCondition[] | null; certificate?: string | null };
}

export const KEY_USAGES = [
  'signing',
  'digital signature',
  'content commitment',
  'key encipherment',
  'key agreement',
  'data encipherment',
  'cert sign',
  'crl sign',
  'encipher only',
  'decipher only',
  'any',
  'server auth',
  'client auth',
  'code signing',
  'email protection',
  's/mime',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'timestamping',
  'ocsp signing',
  'microsoft sgc',
  'netscape sgc',
];

const atomicBytes = (description: string) => ({ ...s.bytes(description), listType: 'atomic' as const });

export const certificatesDefinitions: Definitions = {
  [`${CERT}CertificateSigningRequest`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(
        `${CERT}CertificateSigningRequestSpec`,
        'spec holds the certificate request and is immutable after creation. Only request, signerName, expirationSeconds and usages may be set on creation; the other fields are filled in by Kubernetes.',
        { default: {} },
      ),
      status: s.ref(
        `${CERT}CertificateSigningRequestStatus`,
        'status says whether the request was approved or denied, and carries the issued certificate or the condition saying the signer failed.',
        { default: {} },
      ),
    },
    {
      description:
        'CertificateSigningRequest objects let a client obtain an x509 certificate: it submits a certificate signing request, which is approved (or denied) and then issued asynchronously. Kubelets use it for their client and serving certificates; it also serves client certificates for kube-apiserver and custom signers.',
      required: ['spec'],
    },
  ),
  [`${CERT}CertificateSigningRequestSpec`]: s.obj(
    {
      expirationSeconds: s.int32(
        'expirationSeconds is the requested validity of the issued certificate. Signers may issue a different duration, so clients must check notBefore/notAfter. At least 600 (10 minutes).',
      ),
      extra: s.map(s.arr(s.str(undefined, { default: '' })), 'extra holds extra attributes of the user who created the request. Set by the API server on creation; immutable.'),
      groups: s.arr(s.str(undefined, { default: '' }), {
        description: 'groups holds the group memberships of the user who created the request. Set by the API server on creation; immutable.',
      }),
      request: atomicBytes('request holds an x509 certificate signing request in a "CERTIFICATE REQUEST" PEM block; in JSON and YAML it is also base64-encoded.'),
      signerName: s.str(
        'signerName is the qualified name of the requested signer, e.g. kubernetes.io/kube-apiserver-client, kubernetes.io/kube-apiserver-client-kubelet or kubernetes.io/kubelet-serving, or a custom one. List and watch can filter on it with the "spec.signerName=NAME" field selector.',
        { default: '' },
      ),
      uid: s.str('uid holds the uid of the user who created the request. Set by the API server on creation; immutable.'),
      usages: s.arr(s.enumOf(KEY_USAGES), {
        description:
          'usages lists the key usages requested in the certificate, e.g. "digital signature", "key encipherment" and "client auth" for TLS clients or "server auth" for TLS servers.',
      }),
      username: s.str('username is the name of the user who created the request. Set by the API server on creation; immutable.'),
    },
    { description: 'CertificateSigningRequestSpec contains the certificate request.', required: ['request', 'signerName'] },
  ),
  [`${CERT}CertificateSigningRequestStatus`]: s.obj(
    {
      certificate: atomicBytes(
        'certificate holds the certificate issued by the signer once the request is Approved: PEM "CERTIFICATE" blocks (the first is the issued certificate, the rest intermediates), base64-encoded in JSON. Set through the status subresource; immutable once set.',
      ),
      conditions: s.arr(s.ref(`${CERT}CertificateSigningRequestCondition`, undefined, { default: {} }), {
        listType: 'map',
        mapKeys: ['type'],
        description: 'conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".',
      }),
    },
    { description: 'CertificateSigningRequestStatus contains conditions used to indicate approved/denied/failed status of the request, and the issued certificate.' },
  ),
  [`${CERT}CertificateSigningRequestCondition`]: s.obj(
    {
      lastTransitionTime: s.time('lastTransitionTime is when the condition last changed status. When unset on a new type or status, the server sets it to the current time.'),
      lastUpdateTime: s.time('lastUpdateTime is the time of the last update to this condition'),
      message: s.str('message contains a human readable message with details about the request state'),
      reason: s.str('reason indicates a brief reason for the request state'),
      status: s.str('status of the condition: True, False or Unknown. Approved, Denied and Failed conditions may only be "True".', { default: '' }),
      type: s.str(
        'type of the condition: "Approved" or "Denied" (set through the approval subresource, mutually exclusive) or "Failed" (set through status by the signer). These cannot be removed once added, and each type may appear once.',
        { default: '' },
      ),
    },
    { description: 'CertificateSigningRequestCondition describes a condition of a CertificateSigningRequest object', required: ['type', 'status'] },
  ),
  [`${CERT}CertificateSigningRequestList`]: listDefinition(
    `${CERT}CertificateSigningRequest`,
    'CertificateSigningRequestList is a collection of CertificateSigningRequest objects',
    'items is a collection of CertificateSigningRequest objects',
  ),
};
