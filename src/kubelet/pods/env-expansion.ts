// Kubernetes' `$(VAR)` expansion (third_party/forked/golang/expansion): used for env values, command, args and
// subPathExpr. Unknown references stay as written, `$$` escapes a `$`, an unterminated `$(` is kept verbatim.

export type Mapping = (name: string) => string;

/** A mapping over the given maps in order; a name found nowhere expands back to `$(name)`. */
export function mappingFor(...contexts: ReadonlyMap<string, string>[]): Mapping {
  return (name) => {
    for (const vars of contexts) {
      const v = vars.get(name);
      if (v !== undefined) return v;
    }
    return `$(${name})`;
  };
}

/** Reads what follows a `$`: [consumed text, is a variable reference, characters consumed]. */
function readReference(rest: string): [string, boolean, number] {
  const c = rest[0];
  if (c === '$') return ['$', false, 1];
  if (c === '(') {
    const close = rest.indexOf(')', 1);
    if (close >= 0) return [rest.slice(1, close), true, close + 1];
    return ['$(', false, 1];
  }
  return ['$' + c, false, 1];
}

export function expand(input: string, mapping: Mapping): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const [read, isVar, advance] = readReference(input.slice(cursor + 1));
    out += isVar ? mapping(read) : read;
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

export interface NamedValue {
  name: string;
  value: string;
}

const toMap = (envs: readonly NamedValue[]): Map<string, string> => new Map(envs.map((e) => [e.name, e.value]));

/** kubecontainer.ExpandContainerCommandAndArgs. */
export function expandCommandAndArgs(
  container: { [k: string]: unknown },
  envs: readonly NamedValue[],
): { command: string[]; args: string[] } {
  const mapping = mappingFor(toMap(envs));
  return {
    command: ((container.command ?? []) as string[]).map((c) => expand(c, mapping)),
    args: ((container.args ?? []) as string[]).map((a) => expand(a, mapping)),
  };
}

/** kubecontainer.ExpandContainerVolumeMounts: every reference must resolve to a non-empty value. */
export function expandSubPathExpr(expr: string, envs: readonly NamedValue[]): { value: string } | { error: string } {
  const env = toMap(envs);
  const missing = new Set<string>();
  const value = expand(expr, (k) => {
    const v = env.get(k);
    if (v === undefined || v === '') missing.add(k);
    return v ?? '';
  });
  if (missing.size > 0) return { error: `missing value for ${[...missing].sort().join(', ')}` };
  return { value };
}
