// A CRD's conversion webhook, as apiextensions-apiserver's webhookConverter calls it: a ConversionReview POSTed over
// the admission webhooks' HTTPS client, its answer checked (uid, result, count, apiVersion, kind, name, namespace,
// uid) and the object's metadata restored but for its labels and annotations, with kube's error texts. kube's
// storage converts each object as it decodes it, so every review carries one object.
import { randomUUID } from 'node:crypto';
import type { CustomResourceDefinition } from '../../api/apiextensions/index.js';
import type { CustomResourceConverter } from '../../api/apiextensions/customresource/definition.js';
import type { KObject } from '../../api/types.js';
import { goQuote, StatusError, type FieldError } from '../../machinery/errors.js';
import { isPlainObject } from '../../machinery/object.js';
import { validateAnnotations, validateLabels } from '../../machinery/validation.js';
import { WebhookCallError, type PostOptions, type WebhookClients } from '../admission/webhook/client.js';
import type { Webhook } from '../admission/webhook/types.js';

/** the timeout of kube's webhook client configuration (its authentication resolver's global default) */
export const CONVERSION_TIMEOUT_MS = 30_000;

/** The converter of a CRD whose conversion strategy is Webhook. */
export function conversionWebhook(crd: CustomResourceDefinition, clients: WebhookClients, resolveService: PostOptions['resolveService']): CustomResourceConverter {
  const conv = crd.spec?.conversion?.webhook;
  const cc = conv?.clientConfig ?? {};
  const clientConfig = { url: cc.url ?? undefined, service: cc.service ?? undefined, caBundle: cc.caBundle } as Webhook['clientConfig'];
  const hook: Webhook = { name: `conversion_webhook_for_${crd.metadata.name ?? ''}`, clientConfig, admissionReviewVersions: [] };
  const reviewVersion = (conv?.conversionReviewVersions ?? []).find((v) => v === 'v1' || v === 'v1beta1');
  return async (obj, desired) => {
    const gvk = gvkString(obj);
    const failed = (why: string) => new StatusError(500, '', `conversion webhook for ${gvk} failed: ${why}`);
    if (!reviewVersion) throw new StatusError(500, '', 'no supported conversion review versions');
    const uid = randomUUID();
    const review = { kind: 'ConversionReview', apiVersion: `apiextensions.k8s.io/${reviewVersion}`, request: { uid, desiredAPIVersion: desired, objects: [obj] } };
    let answer: unknown;
    try {
      answer = await clients.post(hook, review, { timeoutMs: CONVERSION_TIMEOUT_MS, resolveService });
    } catch (e) {
      if (!(e instanceof WebhookCallError)) throw e;
      // the rest client's own error, without the admission plugin's wording around it
      throw failed(e.message.replace(/^failed to call webhook: /, ''));
    }
    const problem = reviewProblem(reviewVersion, answer, uid);
    if (problem) throw failed(problem);
    const res = (answer as { response: { convertedObjects?: unknown } }).response;
    const converted = Array.isArray(res.convertedObjects) ? res.convertedObjects : [];
    if (converted.length !== 1) throw new StatusError(500, '', `conversion webhook for ${gvk} returned ${converted.length} objects, expected 1`);
    return checkConverted(obj, converted[0], desired, gvk);
  };
}

/** What is wrong with a review's answer (getConvertedObjectsFromResponse); v1beta1 answers skip the kind and uid checks. */
function reviewProblem(version: string, answer: unknown, uid: string): string | undefined {
  const a = (isPlainObject(answer) ? answer : {}) as { apiVersion?: unknown; kind?: unknown; response?: unknown };
  if (version === 'v1') {
    const got = gvkString({ apiVersion: a.apiVersion, kind: a.kind });
    if (got !== 'apiextensions.k8s.io/v1, Kind=ConversionReview') return `expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${got}`;
  }
  if (!isPlainObject(a.response)) return 'no response provided';
  const r = a.response as { uid?: unknown; result?: { status?: unknown; message?: unknown } };
  const gotUid = typeof r.uid === 'string' ? r.uid : '';
  if (version === 'v1' && gotUid !== uid) return `expected response.uid=${goQuote(uid)}, got ${goQuote(gotUid)}`;
  const result = isPlainObject(r.result) ? r.result : {};
  const status = typeof result.status === 'string' ? result.status : '';
  if (status === 'Success') return undefined;
  const message = typeof result.message === 'string' ? result.message : '';
  return message || `response.result.status was '${status}', not 'Success'`;
}

/** The converted object checked against the original, with the original's metadata but for labels and annotations. */
function checkConverted(original: KObject, raw: unknown, desired: string, gvk: string): KObject {
  const invalid = (why: string) => new StatusError(500, '', `conversion webhook for ${gvk} returned invalid object at index 0: ${why}`);
  if (!isPlainObject(raw) || typeof raw.kind !== 'string' || !raw.kind) {
    throw new StatusError(500, '', `Object 'Kind' is missing in '${JSON.stringify(raw)}'`);
  }
  const out = raw as KObject;
  const gotGv = groupVersionString(out.apiVersion);
  if (gotGv !== desired) throw invalid(`invalid groupVersion (expected ${desired}, received ${gotGv})`);
  if (out.kind !== original.kind) throw invalid(`invalid kind (expected ${original.kind}, received ${out.kind})`);
  const meta = (isPlainObject(out.metadata) ? out.metadata : {}) as Record<string, unknown>;
  const originalMeta = (original.metadata ?? {}) as Record<string, unknown>;
  const same = (field: string, what: string) => {
    const a = typeof originalMeta[field] === 'string' ? originalMeta[field] : '';
    const b = typeof meta[field] === 'string' ? meta[field] : '';
    if (a !== b) throw new StatusError(500, '', `conversion webhook for ${gvk} returned invalid object: must have the same ${what}: ${a} != ${b}`);
  };
  same('name', 'name');
  same('namespace', 'namespace');
  same('uid', 'UID');
  const badMeta = (why: string) => new StatusError(500, '', `conversion webhook for ${gvk} returned invalid metadata: ${why}`);
  if (!('metadata' in out)) throw badMeta('missing metadata in converted object');
  if (!isPlainObject(out.metadata)) throw badMeta(`invalid metadata of type ${goType(out.metadata)} in converted object`);
  const restored: Record<string, unknown> = structuredClone(originalMeta);
  for (const field of ['labels', 'annotations'] as const) {
    const given = meta[field];
    if (given === undefined || given === null) {
      delete restored[field];
      continue;
    }
    if (!isPlainObject(given)) throw badMeta(`invalid metadata.${field} of type ${goType(given)} in converted object`);
    const before = (restored[field] ?? {}) as Record<string, unknown>;
    let changed = Object.keys(before).length !== Object.keys(given).length;
    for (const [k, v] of Object.entries(given)) {
      if (typeof v !== 'string') throw badMeta(`metadata.${field}[${k}] must be a string, but is ${goType(v)} in converted object`);
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const strings = given as Record<string, string>;
      // kube validates annotations at "metadata.annotation"
      const errs = field === 'labels' ? validateLabels(strings, 'metadata.labels') : validateAnnotations(strings, 'metadata.annotation');
      if (errs.length) throw badMeta(aggregate(errs));
    }
    restored[field] = given;
  }
  return { ...out, metadata: restored as KObject['metadata'] };
}

/** Go's GroupVersionKind.String() of an object: "group/version, Kind=kind". */
function gvkString(o: { apiVersion?: unknown; kind?: unknown }): string {
  const av = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const [group, version] = av.includes('/') ? av.split('/', 2) : ['', av];
  return `${group}/${version}, Kind=${typeof o.kind === 'string' ? o.kind : ''}`;
}

/** Go's GroupVersion.String() of an apiVersion (one that does not parse is empty). */
function groupVersionString(apiVersion: unknown): string {
  if (typeof apiVersion !== 'string' || apiVersion.split('/').length > 2) return '';
  return apiVersion.startsWith('/') ? apiVersion.slice(1) : apiVersion;
}

/** %T of a JSON value as encoding/json decodes it into interface{}. */
function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** utilerrors.Aggregate's text. */
function aggregate(errs: FieldError[]): string {
  const parts = [...new Set(errs.map((e) => e.toString()))];
  return parts.length === 1 ? parts[0]! : `[${parts.join(', ')}]`;
}
