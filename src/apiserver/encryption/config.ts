// --encryption-provider-config: an EncryptionConfiguration file (apiserver.config.k8s.io/v1, or the legacy v1
// EncryptionConfig) → the storage transformers of each resource, as kube's encryptionconfig package builds them:
// per entry, one transformer per provider in order (per key for the keyed ones), and per resource the
// transformers of every entry naming it. Errors are kube's texts.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { goQuote } from '../../machinery/errors.js';
import { aggregateMessage as fieldAggregate } from '../../machinery/labels.js';
import { YAML } from '../../machinery/yaml.js';
import { AesCbcTransformer } from '../../storage/encryption/aescbc.js';
import { AesGcmTransformer } from '../../storage/encryption/aesgcm.js';
import { IdentityTransformer } from '../../storage/encryption/identity.js';
import { overrideKey } from '../../storage/encryption/key-transformers.js';
import { SecretboxTransformer } from '../../storage/encryption/secretbox.js';
import { PrefixTransformers, type PrefixTransformer, type Transformer } from '../../storage/encryption/transformer.js';
import {
  decodeStdBase64,
  parseGroupResource,
  validateEncryptionConfiguration,
  type EncryptionConfiguration,
  type KeyConfig,
  type ProviderConfig,
} from './validation.js';

export interface LoadedEncryptionConfig {
  /** `group/resource` (with `*` wildcards) → its transformers */
  overrides: Map<string, PrefixTransformers>;
  /** of the file's bytes: a reload that finds the same hash changes nothing */
  hash: string;
  config: EncryptionConfiguration;
}

/** Reads, decodes, validates and builds; throws kube's "error while parsing file: …" or "error while building …". */
export function loadEncryptionConfig(path: string): LoadedEncryptionConfig {
  let config: EncryptionConfiguration;
  let hash: string;
  try {
    const data = readConfigFile(path);
    hash = configHash(data);
    config = decodeConfig(data.toString('utf8'), path);
    const errs = validateEncryptionConfiguration(config);
    if (errs.length) throw new Error(fieldAggregate(errs));
  } catch (e) {
    throw new Error(`error while parsing file: ${(e as Error).message}`);
  }
  try {
    return { overrides: buildOverrides(config), hash, config };
  } catch (e) {
    throw new Error(`error while building transformers: ${(e as Error).message}`);
  }
}

function readConfigFile(path: string): Buffer {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (e) {
    throw new Error(`error while loading file: error reading encryption provider configuration file ${goQuote(path)}: ${(e as Error).message}`);
  }
  if (!data.length) throw new Error(`error while loading file: encryption provider configuration file ${goQuote(path)} is empty`);
  return data;
}

/** The hash of a file's content, to tell whether a reload has anything new (kube's is the same SHA-256). */
export function configHash(data: Buffer): string {
  return `k8s:enc:unstable:1:${createHash('sha256').update(data).digest('hex')}`;
}

type Raw = Record<string, unknown>;
const isObj = (v: unknown): v is Raw => !!v && typeof v === 'object' && !Array.isArray(v);

/** YAML or JSON → the configuration, strictly: unknown fields are errors, as kube's strict decoder has them. */
export function decodeConfig(text: string, path: string): EncryptionConfiguration {
  const fail = (msg: string) => new Error(`error decoding encryption provider configuration file ${goQuote(path)}: ${msg}`);
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (e) {
    throw fail((e as Error).message.split('\n')[0]!);
  }
  if (!isObj(doc) || typeof doc.kind !== 'string' || !doc.kind) throw fail(`Object 'Kind' is missing in '${text.trim()}'`);
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : '';
  const known = (apiVersion === 'apiserver.config.k8s.io/v1' && doc.kind === 'EncryptionConfiguration') ||
    (apiVersion === 'v1' && doc.kind === 'EncryptionConfig');
  if (!known) throw fail(`no kind ${goQuote(doc.kind)} is registered for version ${goQuote(apiVersion)} in scheme "k8s.io/apiserver/pkg/server/options/encryptionconfig/config.go"`);
  const unknown: string[] = [];
  noteUnknown(doc, ['apiVersion', 'kind', 'resources'], '', unknown);
  const resources = Array.isArray(doc.resources) ? doc.resources : [];
  resources.forEach((r, i) => {
    if (!isObj(r)) return;
    noteUnknown(r, ['resources', 'providers'], `resources[${i}].`, unknown);
    (Array.isArray(r.providers) ? r.providers : []).forEach((p, j) => {
      if (!isObj(p)) return;
      const at = `resources[${i}].providers[${j}].`;
      noteUnknown(p, ['aescbc', 'aesgcm', 'secretbox', 'identity', 'kms'], at, unknown);
      for (const k of ['aescbc', 'aesgcm', 'secretbox'] as const) {
        const c = p[k];
        if (!isObj(c)) continue;
        noteUnknown(c, ['keys'], `${at}${k}.`, unknown);
        (Array.isArray(c.keys) ? c.keys : []).forEach((key, n) => {
          if (isObj(key)) noteUnknown(key, ['name', 'secret'], `${at}${k}.keys[${n}].`, unknown);
        });
      }
      if (isObj(p.identity)) noteUnknown(p.identity, [], `${at}identity.`, unknown);
    });
  });
  if (unknown.length) throw fail(`strict decoding error: ${unknown.map((f) => `unknown field ${goQuote(f)}`).join(', ')}`);
  return doc as EncryptionConfiguration;
}

function noteUnknown(o: Raw, fields: string[], at: string, out: string[]): void {
  for (const k of Object.keys(o)) if (!fields.includes(k)) out.push(at + k);
}

const PREFIX = { aescbc: 'k8s:enc:aescbc:v1:', aesgcm: 'k8s:enc:aesgcm:v1:', secretbox: 'k8s:enc:secretbox:v1:' } as const;

function buildOverrides(config: EncryptionConfiguration): Map<string, PrefixTransformers> {
  const lists = new Map<string, PrefixTransformer[]>();
  const any = overrideKey({ group: '*', resource: '*' });
  for (const entry of config.resources ?? []) {
    const transformers = (entry.providers ?? []).map(providerTransformer);
    for (const res of entry.resources ?? []) {
      const gr = parseGroupResource(res);
      const inGroup = overrideKey({ group: gr.group, resource: '*' });
      // an earlier rule for `*.group` or `*.*` would hide this one: kube refuses rather than ignore part of the file
      if (lists.has(inGroup)) throw new Error(`resource ${goQuote(yamlName(gr))} is masked by earlier rule ${goQuote(yamlName({ group: gr.group, resource: '*' }))}`);
      if (lists.has(any)) throw new Error(`resource ${goQuote(yamlName(gr))} is masked by earlier rule "*.*"`);
      const k = overrideKey(gr);
      lists.set(k, [...(lists.get(k) ?? []), ...transformers]);
    }
  }
  return new Map([...lists].map(([k, l]) => [k, new PrefixTransformers(l, 'no matching prefix found')]));
}

/** kube's grYAMLString: `*.` for the core group's wildcard, else resource.group */
function yamlName(gr: { group: string; resource: string }): string {
  if (gr.group === '' && gr.resource === '*') return '*.';
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function providerTransformer(p: ProviderConfig): PrefixTransformer {
  if (p.identity) return { prefix: Buffer.alloc(0), transformer: new IdentityTransformer() };
  if (p.kms) {
    throw new Error('kms providers are not supported by k1s (it has no KMS plugin client): use aescbc, aesgcm or secretbox');
  }
  if (p.aescbc) return keyed(PREFIX.aescbc, p.aescbc.keys ?? [], 'AES', (k) => new AesCbcTransformer(k));
  if (p.aesgcm) return keyed(PREFIX.aesgcm, p.aesgcm.keys ?? [], 'AES', (k) => new AesGcmTransformer(k));
  if (p.secretbox) {
    return keyed(PREFIX.secretbox, p.secretbox.keys ?? [], 'Secretbox', (k) => {
      if (k.length !== 32) throw new Error(`expected key size 32 for secretbox provider, got ${k.length}`);
      return new SecretboxTransformer(k);
    });
  }
  throw new Error('provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity');
}

/** One provider's keys: each its own `<name>:` prefix after the provider's, tried in order, the first writing. */
function keyed(prefix: string, keys: KeyConfig[], kind: 'AES' | 'Secretbox', make: (key: Buffer) => Transformer): PrefixTransformer {
  const perKey = keys.map((k) => {
    const secret = decodeStdBase64(k.secret ?? '');
    if (!secret) throw new Error(`could not obtain secret for named key ${k.name}: illegal base64 data`);
    return { prefix: Buffer.from(`${k.name}:`), transformer: make(secret) };
  });
  return { prefix: Buffer.from(prefix), transformer: new PrefixTransformers(perKey, `no matching key was found for the provided ${kind} transformer`) };
}
