// Webhook conversion of a CRD's objects as a resource definition's async conversion: what kube's crConverter adds
// around the webhook (versions the CRD does not know are refused, objects in the desired version are not sent), the
// storage decoder's defaulting before it (a stored object gets the defaults of the version it is stored in) and the
// schema coercion after it (the converted object is pruned to the schema of the version it is now in).
import { isPlainObject } from '../../../machinery/object.js';
import { StatusError } from '../../../machinery/errors.js';
import type { AsyncConversion, KObject } from '../../types.js';
import type { JSP } from '../structural.js';
import { pruneQuietly } from './pruning.js';
import { pruneRootMetadata } from './metadata.js';
import { applyDefaults, pruneNonNullableNullsWithoutDefaults } from './defaulting.js';

/** Converts one object (never in `apiVersion` already) to `apiVersion`; throws kube's error when it cannot. */
export type CustomResourceConverter = (obj: KObject, apiVersion: string) => Promise<KObject>;

export interface ConversionContext {
  group: string;
  /** the version this definition serves */
  version: string;
  storage: string;
  /** every version of the CRD (served or not) with its schema */
  schemas: Map<string, JSP | undefined>;
}

export function webhookConversion(convert: CustomResourceConverter, c: ConversionContext): AsyncConversion {
  const gv = (v: string) => `${c.group}/${v}`;
  const to = async (obj: KObject, target: string, fromStorage: boolean): Promise<KObject> => {
    const desired = gv(target);
    if (obj.apiVersion === desired) return obj;
    const from = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
    if (!from.startsWith(`${c.group}/`) || !c.schemas.has(from.slice(c.group.length + 1))) {
      throw new StatusError(500, '', `request to convert CR from an invalid group/version: ${from}`);
    }
    const source = c.schemas.get(from.slice(c.group.length + 1));
    if (source && fromStorage) applyDefaults(obj, source);
    const out = await convert(obj, desired);
    // kube's schemaCoercingConverter: what the webhook returned is pruned to its version's schema
    const schema = c.schemas.get(target);
    pruneRootMetadata(out);
    if (schema) {
      pruneQuietly(out, schema, true);
      pruneNonNullableNullsWithoutDefaults(out, schema);
    }
    return out;
  };
  return {
    fromStored: (obj) => to(obj, c.version, true),
    toStored: (obj) => to(obj, c.storage, false),
  };
}

/** The schemas of all of a CRD's versions, by name. */
export function versionSchemas(versions: Array<{ name?: string; schema?: { openAPIV3Schema?: unknown } | null } | null | undefined>): Map<string, JSP | undefined> {
  const out = new Map<string, JSP | undefined>();
  for (const v of versions) {
    if (!v?.name) continue;
    const s = v.schema?.openAPIV3Schema;
    out.set(v.name, isPlainObject(s) ? (s as JSP) : undefined);
  }
  return out;
}
