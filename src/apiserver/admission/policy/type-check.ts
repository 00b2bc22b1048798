// Type checking of a ValidatingAdmissionPolicy (validating/typechecking.go): its validations and message
// expressions compiled once per kind its resource rules name (no wildcards, at most 10 kinds), with `object`,
// `oldObject` and `params` typed by those kinds' schemas. The findings become status.typeChecking warnings; they
// never change what the policy does.
import { typedAdmissionEnv } from '../../../api/admissionregistration/admission-cel.js';
import type { ValidatingAdmissionPolicy } from '../../../api/admissionregistration/policy-validation.js';
import { T, type DeclType } from '../../../machinery/cel/index.js';
import type { Registry } from '../../registry/registry.js';
import type { ResourceStore } from '../../registry/store.js';
import { kindDeclType } from './schema-types.js';

const MAX_TYPES = 10;

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

const gvkString = (s: ResourceStore) => `${s.def.group}/${s.def.version}, Kind=${s.def.kind}`;

/** The stores of the kinds to check, sorted by group, version and kind. */
function kindsToCheck(p: ValidatingAdmissionPolicy, registry: Registry): ResourceStore[] {
  const out = new Set<ResourceStore>();
  for (const rule of p.spec?.matchConstraints?.resourceRules ?? []) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    if (!groups.length || groups.some((g) => g.includes('*')) || !versions.length || versions.some((v) => v.includes('*'))) continue;
    const resources = (rule.resources ?? []).filter((r) => !/[*/]/.test(r));
    for (const g of [...groups].sort()) {
      for (const v of [...versions].sort()) {
        for (const r of [...resources].sort()) {
          const s = registry.lookup(g, v, r);
          if (!s) continue;
          out.add(s);
          if (out.size === MAX_TYPES) return sort([...out]);
        }
      }
    }
  }
  return sort([...out]);
}

const sort = (l: ResourceStore[]) => l.sort((a, b) => (a.def.group + '\0' + a.def.version + '\0' + a.def.kind < b.def.group + '\0' + b.def.version + '\0' + b.def.kind ? -1 : 1));

/** A type from the engine's spelling of a variable's output type; dyn where it cannot say. */
function typeFromString(s: string, named: Map<string, DeclType>): DeclType {
  const simple: Record<string, () => DeclType> = {
    int: T.int, uint: T.uint, double: T.double, string: () => T.string(), bool: T.bool, bytes: () => T.bytes(),
    'google.protobuf.Timestamp': T.timestamp, 'google.protobuf.Duration': T.duration,
  };
  if (simple[s]) return simple[s]();
  const list = /^list<(.*)>$/.exec(s);
  if (list) return T.list(typeFromString(list[1]!, named));
  const map = /^map<string, (.*)>$/.exec(s);
  if (map) return T.map(typeFromString(map[1]!, named));
  return named.get(s) ?? T.dyn();
}

function objectTypesOf(t: DeclType | undefined, out = new Map<string, DeclType>()): Map<string, DeclType> {
  if (!t || (t.name && out.has(t.name))) return out;
  if (t.kind === 'object' && t.name) out.set(t.name, t);
  if (t.elem) objectTypesOf(t.elem, out);
  for (const f of t.fields?.values() ?? []) objectTypesOf(f, out);
  return out;
}

export function typeCheckPolicy(p: ValidatingAdmissionPolicy, registry: Registry): ExpressionWarning[] {
  const kinds = kindsToCheck(p, registry);
  if (!kinds.length) return [];
  const spec = p.spec ?? {};
  const paramKind = spec.paramKind;
  const paramStore = paramKind ? registry.forKind(paramKind.apiVersion ?? '', paramKind.kind ?? '') : undefined;
  const paramsType = paramStore ? kindDeclType(paramStore, registry.schemas) : undefined;
  const opts = { params: !!paramKind, stored: true };
  const perExpression = new Map<string, string[]>();
  const note = (ref: string, text: string) => perExpression.set(ref, [...(perExpression.get(ref) ?? []), text]);
  for (const store of kinds) {
    const objectT = kindDeclType(store, registry.schemas);
    if (!objectT) continue;
    const named = objectTypesOf(objectT, objectTypesOf(paramsType));
    // variables in order, each typed by what it compiled to
    const variables: Array<[string, DeclType]> = [];
    for (const v of spec.variables ?? []) {
      if (!v?.name) continue;
      const c = typedAdmissionEnv(opts, { object: objectT, params: paramsType, variables }).compile(v.expression ?? '');
      variables.push([v.name, c.program ? typeFromString(c.program.outputType, named) : T.dyn()]);
    }
    const env = typedAdmissionEnv(opts, { object: objectT, params: paramsType, variables });
    (spec.validations ?? []).forEach((v, i) => {
      const c = env.compile(v?.expression ?? '');
      if (c.error !== undefined) note(`spec.validations[${i}].expression`, `${gvkString(store)}: ${c.error}\n`);
      if (!v?.messageExpression) return;
      const m = env.compile(v.messageExpression);
      if (m.error !== undefined) note(`spec.validations[${i}].messageExpression`, `${gvkString(store)}: ${m.error}\n`);
    });
  }
  const out: ExpressionWarning[] = [];
  (spec.validations ?? []).forEach((v, i) => {
    for (const f of ['expression', 'messageExpression']) {
      const ref = `spec.validations[${i}].${f}`;
      const w = perExpression.get(ref);
      if (w) out.push({ fieldRef: ref, warning: w.join('\n') });
    }
  });
  return out;
}
