// The AdmissionReview a webhook is sent and the checks its answer must pass, as kube-apiserver's
// admission/plugin/webhook/request and the dispatchers do them, with encoding/json's words for an answer that does
// not decode (a Go apiserver decodes it into typed structs; users match on those texts).
import { goQuote } from '../../../machinery/errors.js';
import { goJsonSyntaxError } from '../../../machinery/go-json.js';
import type { GroupVersionKind, GroupVersionResource, RequestAttributes, Webhook, WebhookResponse } from './types.js';

/**
 * A failed call or an unusable answer. The message is the reason as kube-apiserver words it (`failed to call webhook:
 * …`, `received invalid webhook response: …`); the dispatcher puts `failed calling webhook "<name>": ` in front, as
 * ErrCallingWebhook does.
 */
export class WebhookCallError extends Error {
  override name = 'WebhookCallError';
}

export type ReviewVersion = 'v1' | 'v1beta1';
const SPOKEN: readonly string[] = ['v1', 'v1beta1'];

/** The first of the webhook's admissionReviewVersions that k1s speaks (CreateAdmissionObjects). */
export function chooseVersion(hook: Webhook): ReviewVersion {
  const v = hook.admissionReviewVersions.find((x) => SPOKEN.includes(x));
  if (v) return v as ReviewVersion;
  throw new WebhookCallError('could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)');
}

/** The AdmissionReview as Go's encoding/json writes admission.k8s.io's types (omitempty, key order). */
export function buildReview(version: ReviewVersion, attrs: RequestAttributes): object {
  const gvk = (k: GroupVersionKind) => ({ group: k.group, version: k.version, kind: k.kind });
  const gvr = (r: GroupVersionResource) => ({ group: r.group, version: r.version, resource: r.resource });
  const u = attrs.userInfo;
  const requestSubResource = attrs.requestSubResource ?? attrs.subResource;
  return {
    kind: 'AdmissionReview',
    apiVersion: `admission.k8s.io/${version}`,
    request: {
      uid: attrs.uid,
      kind: gvk(attrs.kind),
      resource: gvr(attrs.resource),
      ...(attrs.subResource ? { subResource: attrs.subResource } : {}),
      // pointers in Go, always set: the request's own kind and resource
      requestKind: gvk(attrs.requestKind ?? attrs.kind),
      requestResource: gvr(attrs.requestResource ?? attrs.resource),
      ...(requestSubResource ? { requestSubResource } : {}),
      ...(attrs.name ? { name: attrs.name } : {}),
      ...(attrs.namespace ? { namespace: attrs.namespace } : {}),
      operation: attrs.operation,
      userInfo: {
        ...(u.username ? { username: u.username } : {}),
        ...(u.uid ? { uid: u.uid } : {}),
        ...(u.groups?.length ? { groups: u.groups } : {}),
        ...(u.extra && Object.keys(u.extra).length > 0 ? { extra: u.extra } : {}),
      },
      // RawExtensions: omitempty never drops a struct, and an empty one marshals as null
      object: attrs.object ?? null,
      oldObject: attrs.oldObject ?? null,
      dryRun: attrs.dryRun, // a *bool kube always sets
      options: attrs.options ?? null,
    },
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The webhook's answer (the JSON WebhookClients.post returned) checked as VerifyAdmissionResponse checks it, and its
 * patch decoded as the mutating dispatcher decodes it. `mutating` false applies the validating webhook's rules.
 */
export function parseResponse(version: ReviewVersion, body: unknown, expectedUid: string, mutating = true): WebhookResponse {
  const review = isObject(body) ? body : {};
  const invalid = (inner: string) => new WebhookCallError(`received invalid webhook response: ${inner}`);
  const r = review.response;
  if (r != null && !isObject(r)) throw typeError(r, 'AdmissionReview.response', `${version}.AdmissionResponse`);
  if (!isObject(r)) throw invalid('webhook response was absent');
  checkFields(version, r);
  const uid = typeof r.uid === 'string' ? r.uid : '';
  const patch = typeof r.patch === 'string' ? r.patch : '';
  const patchType = r.patchType as string | null | undefined;
  // v1beta1 answers were never checked for uid, kind or patchType; kube keeps it so
  if (version === 'v1') {
    if (uid !== expectedUid) throw invalid(`expected response.uid=${goQuote(expectedUid)}, got ${goQuote(uid)}`);
    const [group, ver] = gv(review.apiVersion);
    const got = `${group}/${ver}, Kind=${typeof review.kind === 'string' ? review.kind : ''}`;
    const want = 'admission.k8s.io/v1, Kind=AdmissionReview';
    if (got !== want) throw invalid(`expected webhook response of ${want}, got ${got}`);
    if (mutating) {
      if (patch && patchType == null) throw invalid('webhook returned response.patch but not response.patchType');
      if (!patch && patchType != null) throw invalid('webhook returned response.patchType but not response.patch');
      if (patchType === '') throw invalid('webhook returned invalid response.patchType of ""');
    } else {
      if (patch) throw invalid('validating webhook may not return response.patch');
      if (patchType != null) throw invalid('validating webhook may not return response.patchType');
    }
  }
  const out: WebhookResponse = { uid, allowed: r.allowed === true };
  if (isObject(r.status)) out.status = r.status as NonNullable<WebhookResponse['status']>;
  if (Array.isArray(r.warnings)) out.warnings = r.warnings.map((w) => (typeof w === 'string' ? w : ''));
  if (isObject(r.auditAnnotations)) out.auditAnnotations = r.auditAnnotations as Record<string, string>;
  // a rejection's patch is never looked at; an empty one changes nothing
  if (!out.allowed || !mutating || !patch) return out;
  const ops = decodePatch(Buffer.from(patch, 'base64'));
  if (ops.length === 0) return out;
  const type = version === 'v1' ? String(patchType) : 'JSONPatch';
  if (type !== 'JSONPatch') throw new WebhookCallError(`unsupported patch type ${goQuote(type)}`);
  out.patch = ops;
  return out;
}

/** schema.ParseGroupVersion (its error was raised while decoding, in WebhookClients.post). */
function gv(apiVersion: unknown): [string, string] {
  const s = typeof apiVersion === 'string' ? apiVersion : '';
  const i = s.indexOf('/');
  return i < 0 ? ['', s] : [s.slice(0, i), s.slice(i + 1)];
}

/** An UnmarshalTypeError inside the review, as Result.Into returned it. */
function typeError(got: unknown, field: string, goType: string): WebhookCallError {
  return new WebhookCallError(`failed to call webhook: json: cannot unmarshal ${jsonKind(got)} into Go struct field ${field} of type ${goType}`);
}

/** The Go types of AdmissionResponse's fields, checked in the order the answer lists them (the first error wins). */
function checkFields(version: ReviewVersion, r: Record<string, unknown>): void {
  const types: Record<string, string> = {
    uid: 'types.UID',
    allowed: 'bool',
    status: 'v1.Status',
    patch: '[]uint8',
    patchType: `${version}.PatchType`,
    auditAnnotations: 'map[string]string',
    warnings: '[]string',
  };
  for (const [k, v] of Object.entries(r)) {
    const goType = types[k];
    if (!goType || v === null) continue;
    const field = `AdmissionResponse.response.${k}`;
    const container = goType === '[]string' || goType.startsWith('map');
    const ok = goType === 'bool' ? typeof v === 'boolean' : goType === '[]string' ? Array.isArray(v) : container || goType === 'v1.Status' ? isObject(v) : typeof v === 'string';
    if (!ok) throw typeError(v, field, goType);
    const bad = container ? Object.values(v as object).find((x) => x !== null && typeof x !== 'string') : undefined;
    if (bad !== undefined) throw typeError(bad, field, 'string');
    const at = k === 'patch' ? base64Error(v as string) : undefined;
    if (at !== undefined) throw new WebhookCallError(`failed to call webhook: illegal base64 data at input byte ${at}`);
  }
}

/** Where base64.StdEncoding (padded; CR and LF skipped) stops decoding s, or undefined when it decodes. */
function base64Error(s: string): number | undefined {
  const t = s.replace(/[\r\n]/g, '');
  if (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(t)) return undefined;
  const bad = t.search(/[^A-Za-z0-9+/]/);
  return bad >= 0 ? bad : t.length - (t.length % 4);
}

/** jsonpatch.DecodePatch (evanphx/json-patch), with its errors under the mutating dispatcher's words. */
function decodePatch(bytes: Buffer): unknown[] {
  const fail = (inner: string) => new WebhookCallError(`received undecodable patch in webhook response: ${inner}`);
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString());
  } catch (e) {
    throw fail(goJsonSyntaxError(bytes) ?? (e as Error).message);
  }
  if (v === null) return [];
  if (!Array.isArray(v)) throw fail(`json: cannot unmarshal ${jsonKind(v)} into Go value of type jsonpatch.Patch`);
  const bad = v.find((op) => op !== null && !isObject(op));
  if (bad !== undefined) throw fail(`json: cannot unmarshal ${jsonKind(bad)} into Go value of type jsonpatch.Operation`);
  return v;
}

/** The JSON kind of a value as encoding/json names it in an UnmarshalTypeError. */
export function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return v === null ? 'null' : typeof v; // 'number', 'string', 'object'
}
