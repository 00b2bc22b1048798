// cel-go's error texts for what the engine reports in its own words: compile issues as
// `ERROR: <input>:1:6: undeclared reference to 'x' (in container '')` with the source snippet and caret, and
// runtime errors as cel-go's err.Error() ("no such key: x", "integer overflow", ...).

/** An error raised by a k1s library function, already in cel-go's words. */
export class CelRuntimeError extends Error {}

interface Node {
  op: string;
  args: unknown;
  start: number;
  end: number;
  pos?: number;
  input?: string;
  checkedType?: { name: string };
}

interface EngineError {
  name?: string;
  code?: string;
  summary?: string;
  message?: string;
  node?: Node;
  range?: { start: number; end: number };
}

const BINARY_NAMES: Record<string, string> = {
  '==': '_==_', '!=': '_!=_', '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_', '+': '_+_', '-': '_-_', '*': '_*_',
  '/': '_/_', '%': '_%_', in: '@in', '&&': '_&&_', '||': '_||_',
};

/** The engine's type names in cel-go's spelling: list(int), map(string, int), timestamp, optional_type(int). */
export function celGoTypeName(name: string | undefined): string {
  if (!name) return 'dyn';
  let s = name
    .replace(/google\.protobuf\.Timestamp/g, 'timestamp')
    .replace(/google\.protobuf\.Duration/g, 'duration')
    .replace(/\bnull_type\b/g, 'null')
    .replace(/dyn<([^<>]*)>/g, '$1');
  for (let i = 0; i < 20 && /(list|map|optional)<[^<>]*>/.test(s); i++) {
    s = s.replace(/(list|map|optional)<([^<>]*)>/g, (_m, k: string, inner: string) => `${k === 'optional' ? 'optional_type' : k}(${inner})`);
  }
  return s;
}

const tname = (n: unknown): string => celGoTypeName((n as Node | undefined)?.checkedType?.name);

/** The position cel-go attributes to a node: the operator token, '(' of a call, '.' of a select. */
export function nodePosition(n: Node, input: string): number {
  const after = (from: number, text: string): number => {
    const i = input.indexOf(text, from);
    return i < 0 ? n.start : i;
  };
  const args = n.args as Node[];
  switch (n.op) {
    case '.': case '.?':
      return after(args[0].end, '.');
    case '[]': case '[?]':
      return after(args[0].end, '[');
    case 'call':
      return after(n.start, '(');
    case 'rcall':
      return after((args[1] as Node).end, '(');
    case '?:':
      return after(args[0].end, '?');
    default:
      if (n.op in BINARY_NAMES && Array.isArray(args) && args.length === 2) return after(args[0].end, n.op);
      return n.start;
  }
}

/** cel-go's common.Error.ToDisplayString for one issue at an offset of the expression. */
export function displayError(input: string, offset: number, message: string): string {
  const before = input.slice(0, Math.max(0, offset));
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const colRunes = [...input.slice(lineStart, offset)];
  let out = `ERROR: <input>:${line}:${colRunes.length + 1}: ${message}`;
  const lineText = (input.slice(lineStart).split('\n')[0] ?? '').replace(/\t/g, ' ');
  if (lineText.length <= 16384) {
    let ind = '';
    for (const ch of colRunes) ind += Buffer.byteLength(ch) > 1 ? '\uff0e' : '.';
    const at = [...input.slice(offset)][0];
    ind += at !== undefined && Buffer.byteLength(at) > 1 ? '\uff3e' : '^';
    out += `\n | ${lineText}\n | ${ind}`;
  }
  return out;
}

/** Removes the internal prefix of the k1s replacements of engine built-ins from a message. */
export const publicName = (s: string): string => s.replace(/__k1s_/g, '');

function checkMessage(e: EngineError, input: string, knownFunctions: ReadonlySet<string>): { pos: number; msg: string } {
  const n = e.node;
  const summary = publicName(e.summary ?? e.message ?? 'unknown error');
  if (!n) return { pos: e.range?.start ?? 0, msg: summary };
  const pos = nodePosition(n, input);
  const args = n.args as Node[];
  switch (e.code) {
    case 'unknown_variable':
      return { pos: n.start, msg: `undeclared reference to '${String(n.args)}' (in container '')` };
    case 'no_such_key':
      if (n.op === '.' || n.op === '.?') return { pos, msg: `undefined field '${String(args[1])}'` };
      break;
    case 'cannot_index_type':
      if (n.op === '.' || n.op === '.?') return { pos, msg: `type '${tname(args[0])}' does not support field selection` };
      return { pos, msg: `found no matching overload for '_[_]' applied to '(${tname(args[0])}, ${tname(args[1])})'` };
    case 'invalid_index_type':
      return { pos, msg: `found no matching overload for '_[_]' applied to '(${tname(args[0])}, ${tname(args[1])})'` };
    case 'no_matching_overload':
    case 'no_such_overload': {
      if (n.op === 'call' || n.op === 'rcall') {
        const name = publicName(String(args[0]));
        if (!knownFunctions.has(name)) return { pos, msg: `undeclared reference to '${name}' (in container '')` };
        const fnArgs = (n.op === 'call' ? args[1] : args[2]) as unknown as Node[];
        const target = n.op === 'rcall' ? `${tname(args[1])}.` : '';
        return { pos, msg: `found no matching overload for '${name}' applied to '${target}(${fnArgs.map(tname).join(', ')})'` };
      }
      if (n.op === '!_' || n.op === '-_') return { pos, msg: `found no matching overload for '${n.op}' applied to '(${tname(n.args)})'` };
      if (BINARY_NAMES[n.op]) return { pos, msg: `found no matching overload for '${BINARY_NAMES[n.op]}' applied to '(${tname(args[0])}, ${tname(args[1])})'` };
      break;
    }
    case 'invalid_logical_operand':
      return { pos, msg: `found no matching overload for '${BINARY_NAMES[n.op] ?? n.op}' applied to '(${tname(args[0])}, ${tname(args[1])})'` };
    case 'invalid_condition_type':
    case 'incompatible_ternary_branches': {
      const t = n.op === '?:' ? n : undefined;
      if (t) return { pos, msg: `found no matching overload for '_?_:_' applied to '(${args.map(tname).join(', ')})'` };
      break;
    }
    case 'heterogeneous_list_element':
    case 'heterogeneous_map_key':
    case 'heterogeneous_map_value': {
      const m = /'([^']+)'[^']*'([^']+)'/.exec(summary);
      if (m) return { pos: n.start, msg: `expected type '${celGoTypeName(m[1])}' but found '${celGoTypeName(m[2])}'` };
      break;
    }
    case 'invalid_comprehension_range':
      return { pos, msg: `expression of type '${tname(n)}' cannot be range of a comprehension (must be list, map, or dynamic)` };
    case 'invalid_macro_argument':
      return { pos: n.start, msg: summary.startsWith('has()') ? 'invalid argument to has() macro' : summary };
  }
  return { pos, msg: summary.charAt(0).toLowerCase() + summary.slice(1) };
}

/** A compile (parse or type-check) failure of the engine as cel-go's issues.String(). */
export function compileErrorText(err: unknown, input: string, knownFunctions: ReadonlySet<string>): string {
  const e = (err ?? {}) as EngineError;
  if (e.name === 'ParseError') {
    const pos = e.range?.start ?? e.node?.start ?? 0;
    const s = publicName(e.summary ?? e.message ?? 'syntax error');
    const msg = e.code === 'invalid_macro_argument' && s.startsWith('has()') ? 'invalid argument to has() macro' : `Syntax error: ${s.charAt(0).toLowerCase()}${s.slice(1)}`;
    return displayError(input, pos, msg);
  }
  if (e.name === 'TypeError' && e.code) {
    const { pos, msg } = checkMessage(e, input, knownFunctions);
    return displayError(input, pos, msg);
  }
  return displayError(input, 0, publicName(e.message ?? String(err)));
}

/** A runtime failure as cel-go's err.Error(). */
export function runtimeErrorText(err: unknown): string {
  if (err instanceof CelRuntimeError) return err.message;
  const e = (err ?? {}) as EngineError;
  const s = publicName(e.summary ?? (err instanceof Error ? err.message : String(err)));
  switch (e.code) {
    case 'no_such_key': {
      const m = /index out of bounds, index (-?\d+)/.exec(s);
      return m ? `index out of bounds: ${m[1]}` : s.replace(/^No such key/, 'no such key');
    }
    case 'index_out_of_bounds': {
      const m = /index (-?\d+)/.exec(s);
      return `index out of bounds: ${m ? m[1] : ''}`;
    }
    case 'numeric_overflow':
      return /unsigned/i.test(s) ? 'unsigned integer overflow' : 'integer overflow';
    case 'division_by_zero':
      return 'division by zero';
    case 'modulo_by_zero':
      return 'modulus by zero';
    case 'no_such_overload':
    case 'no_matching_overload':
    case 'invalid_logical_operand':
    case 'invalid_condition_type':
      return 'no such overload';
    case 'optional_value_missing':
      return 'optional.none() dereference';
    case 'int_conversion_error':
    case 'uint_conversion_error':
    case 'double_conversion_error':
      return 'type conversion error';
    case 'invalid_duration':
    case 'invalid_timestamp':
      return s;
  }
  return s;
}
