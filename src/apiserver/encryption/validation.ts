// kube's ValidateEncryptionConfiguration (k8s.io/apiserver/pkg/apis/apiserver/validation), with its texts: what a
// start with a bad --encryption-provider-config prints.
import { FieldError } from '../../machinery/errors.js';

export interface KeyConfig {
  name?: string;
  secret?: string;
}

export interface ProviderConfig {
  aescbc?: { keys?: KeyConfig[] };
  aesgcm?: { keys?: KeyConfig[] };
  secretbox?: { keys?: KeyConfig[] };
  identity?: Record<string, never>;
  kms?: Record<string, unknown>;
}

export interface ResourceConfig {
  resources?: string[];
  providers?: ProviderConfig[];
}

export interface EncryptionConfiguration {
  apiVersion?: string;
  kind?: string;
  resources?: ResourceConfig[];
}

const AES_KEY_SIZES = [16, 24, 32];
const SECRETBOX_KEY_SIZES = [32];

const overlapErr = "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked";

/** schema.ParseGroupResource: `resource.group`, split at the first dot. */
export function parseGroupResource(s: string): { group: string; resource: string } {
  const i = s.indexOf('.');
  return i >= 0 ? { group: s.slice(i + 1), resource: s.slice(0, i) } : { group: '', resource: s };
}

/** Go's base64.StdEncoding.DecodeString (padding required; CR and LF ignored), or undefined when it would fail. */
export function decodeStdBase64(s: string): Buffer | undefined {
  const t = s.replace(/[\r\n]/g, '');
  if (t.length % 4 !== 0 || !/^[A-Za-z0-9+/]*(={0,2})$/.test(t)) return undefined;
  return Buffer.from(t, 'base64');
}

export function validateEncryptionConfiguration(c: EncryptionConfiguration): FieldError[] {
  const errs: FieldError[] = [];
  if (!c.resources?.length) return [FieldError.required('resources', 'at least one resources is required')];
  c.resources.forEach((conf, i) => {
    const r = `resources[${i}].resources`;
    const p = `resources[${i}].providers`;
    if (!conf.resources?.length) errs.push(FieldError.required(r, `at least one ${r} is required`));
    errs.push(...validateResourceOverlap(conf.resources ?? [], r), ...validateResourceNames(conf.resources ?? [], r));
    if (!conf.providers?.length) errs.push(FieldError.required(p, `at least one ${p} is required`));
    (conf.providers ?? []).forEach((provider, j) => {
      const path = `${p}[${j}]`;
      const single = validateSingleProvider(provider, path);
      errs.push(...single);
      if (single.length) return;
      if (provider.aesgcm) errs.push(...validateKeys(provider.aesgcm.keys, `${path}.aesgcm.keys`, AES_KEY_SIZES));
      else if (provider.aescbc) errs.push(...validateKeys(provider.aescbc.keys, `${path}.aescbc.keys`, AES_KEY_SIZES));
      else if (provider.secretbox) errs.push(...validateKeys(provider.secretbox.keys, `${path}.secretbox.keys`, SECRETBOX_KEY_SIZES));
    });
  });
  return errs;
}

function validateResourceOverlap(resources: string[], field: string): FieldError[] {
  if (resources.length < 2) return [];
  const grs = resources.map(parseGroupResource);
  let overlap = false;
  let duplicate = false;
  grs.forEach((r1, i) => {
    grs.forEach((r2, j) => {
      if (i === j) return;
      if (r1.group === r2.group && r1.resource === r2.resource) {
        duplicate = true;
        return;
      }
      if (overlap) return;
      if (r1.group === '*' && r1.resource === '*') overlap = true;
      else if (r1.group === r2.group && (r1.resource === '*' || r2.resource === '*')) overlap = true;
    });
  });
  const errs: FieldError[] = [];
  if (duplicate) errs.push(FieldError.invalid(field, resources, 'the same resource cannot be specified multiple times'));
  if (overlap) errs.push(FieldError.invalid(field, resources, overlapErr));
  return errs;
}

function validateResourceNames(resources: string[], field: string): FieldError[] {
  const errs: FieldError[] = [];
  resources.forEach((res, j) => {
    const f = `${field}[${j}]`;
    const gr = parseGroupResource(res);
    let why: string | undefined;
    if (res.toLowerCase() !== res) why = 'resource name should not contain capital letters';
    else if (res === '*') why = "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources";
    else if (['apiserveripinfo', 'serviceipallocations', 'servicenodeportallocations'].includes(res)) {
      why = 'resources which do not have REST API/s cannot be encrypted';
    } else if (gr.group === 'events.k8s.io') {
      why = "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file";
    } else if (gr.group === 'extensions') why = "'extensions' group has been removed and cannot be used for encryption";
    else if (gr.group === '*' && gr.resource !== '*') why = 'encrypting the same resource across groups is not supported';
    if (why) errs.push(FieldError.invalid(f, res, why));
  });
  return errs;
}

function validateSingleProvider(provider: ProviderConfig, field: string): FieldError[] {
  const found = (['kms', 'aesgcm', 'aescbc', 'secretbox', 'identity'] as const).filter((k) => provider[k] != null).length;
  // Go prints the struct with %#v; the configuration's own form is more use to whoever fixes it
  const shown = { toString: () => JSON.stringify(provider) };
  if (found === 0) return [FieldError.invalid(field, shown, 'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity')];
  if (found > 1) return [FieldError.invalid(field, shown, 'more than one provider specified in a single element, should split into different list elements')];
  return [];
}

function validateKeys(keys: KeyConfig[] | undefined, field: string, sizes: number[]): FieldError[] {
  if (!keys?.length) return [FieldError.required(field, 'at least one keys is required')];
  const errs: FieldError[] = [];
  keys.forEach((key, i) => {
    const f = `${field}[${i}]`;
    if (!key.name) errs.push(FieldError.required(`${f}.name`, 'name is a mandatory field for a key'));
    if (!key.secret) {
      errs.push(FieldError.required(`${f}.secret`, 'secret is a mandatory field for a key'));
      return;
    }
    const secret = decodeStdBase64(key.secret);
    if (!secret) {
      errs.push(FieldError.invalid(`${f}.secret`, 'REDACTED', 'secrets must be base64 encoded'));
      return;
    }
    if (!sizes.includes(secret.length)) {
      errs.push(FieldError.invalid(`${f}.secret`, 'REDACTED', `secret is not of the expected length, got ${secret.length}, expected one of [${sizes.join(' ')}]`));
    }
  });
  return errs;
}
