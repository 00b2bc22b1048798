// The PodSecurity plugin's configuration (pod-security.admission.config.k8s.io PodSecurityConfiguration): the
// default policy for namespaces without labels and the exempt users, runtime classes and namespaces, read from an
// apiserver.config.k8s.io AdmissionConfiguration file as kube-apiserver's --admission-control-config-file.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { FieldError } from '../../../machinery/errors.js';
import { YAML } from '../../../machinery/yaml.js';
import { aggregateErrors, parseLevel, parseVersion, PRIVILEGED_LATEST, type Policy } from './levels.js';

export interface PodSecurityConfig {
  defaults: Policy;
  exemptions: { usernames: string[]; runtimeClasses: string[]; namespaces: string[] };
}

export const DEFAULT_POD_SECURITY_CONFIG: PodSecurityConfig = {
  defaults: PRIVILEGED_LATEST,
  exemptions: { usernames: [], runtimeClasses: [], namespaces: [] },
};

const CONFIG_GROUP = 'pod-security.admission.config.k8s.io';
const CONFIG_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'].map((v) => `${CONFIG_GROUP}/${v}`);
const ADMISSION_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.k8s.io/v1alpha1'];

type Raw = Record<string, unknown>;
const asObj = (v: unknown): Raw => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Raw) : {});

/** A PodSecurityConfiguration object → the config, or an error naming what is wrong. */
export function parsePodSecurityConfiguration(raw: unknown): PodSecurityConfig {
  const o = asObj(raw);
  if (o.kind !== 'PodSecurityConfiguration' || !CONFIG_VERSIONS.includes(String(o.apiVersion))) {
    throw new Error(`expected ${CONFIG_GROUP}/v1 PodSecurityConfiguration, got ${String(o.apiVersion)} ${String(o.kind)}`);
  }
  const errs: FieldError[] = [];
  const d = asObj(o.defaults);
  const defaults: Policy = { enforce: { ...PRIVILEGED_LATEST.enforce }, audit: { ...PRIVILEGED_LATEST.audit }, warn: { ...PRIVILEGED_LATEST.warn } };
  for (const mode of ['enforce', 'audit', 'warn'] as const) {
    const level = d[mode];
    if (level !== undefined && level !== '') {
      const r = parseLevel(String(level));
      if (r.error) errs.push(FieldError.invalid(`defaults.${mode}`, String(level), r.error));
      defaults[mode].level = r.level;
    }
    const version = d[`${mode}-version`];
    if (version !== undefined && version !== '') {
      const r = parseVersion(String(version));
      if (r.error) errs.push(FieldError.invalid(`defaults.${mode}-version`, String(version), r.error));
      defaults[mode].version = r.version;
    }
  }
  const e = asObj(o.exemptions);
  const list = (field: 'usernames' | 'runtimeClasses' | 'namespaces'): string[] => {
    const v = e[field];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      errs.push(FieldError.invalid(`exemptions.${field}`, String(v), 'must be a list'));
      return [];
    }
    const seen = new Set<string>();
    v.forEach((item, i) => {
      const s = String(item);
      if (!s) errs.push(FieldError.invalid(`exemptions.${field}[${i}]`, s, 'must be non-empty'));
      else if (seen.has(s)) errs.push(FieldError.duplicate(`exemptions.${field}[${i}]`, s));
      seen.add(s);
    });
    return v.map(String);
  };
  const exemptions = { usernames: list('usernames'), runtimeClasses: list('runtimeClasses'), namespaces: list('namespaces') };
  if (errs.length) throw new Error(aggregateErrors(errs));
  return { defaults, exemptions };
}

/**
 * The PodSecurity entry of an AdmissionConfiguration file (inline `configuration` or a `path` relative to the
 * file); the default configuration when the file has none.
 */
export function loadAdmissionConfiguration(file: string): PodSecurityConfig {
  const doc = asObj(YAML.parse(readFileSync(file, 'utf8')));
  if (doc.kind !== 'AdmissionConfiguration' || !ADMISSION_VERSIONS.includes(String(doc.apiVersion))) {
    throw new Error(`${file}: expected apiserver.config.k8s.io/v1 AdmissionConfiguration, got ${String(doc.apiVersion)} ${String(doc.kind)}`);
  }
  const plugins = Array.isArray(doc.plugins) ? doc.plugins.map(asObj) : [];
  const entry = plugins.find((p) => p.name === 'PodSecurity');
  if (!entry) return DEFAULT_POD_SECURITY_CONFIG;
  try {
    if (entry.configuration !== undefined) return parsePodSecurityConfiguration(entry.configuration);
    if (typeof entry.path === 'string' && entry.path) {
      const path = resolve(dirname(file), entry.path);
      return parsePodSecurityConfiguration(YAML.parse(readFileSync(path, 'utf8')));
    }
  } catch (e) {
    throw new Error(`${file}: PodSecurity: ${(e as Error).message}`);
  }
  return DEFAULT_POD_SECURITY_CONFIG;
}
