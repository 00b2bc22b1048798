// RE2 (Go regexp) patterns run on JavaScript's engine: the syntax RE2 rejects (lookaround, backreferences,
// possessive quantifiers) is rejected with Go's error text, RE2-only syntax ((?P<n>, \z, \A, \Q..\E, [[:alpha:]],
// \pL, leading (?i) flags) is translated. Matching is JS semantics otherwise (leftmost-first, as RE2's default).
// Kubernetes' regex library (find, findAll) and CEL's matches use it.
import { CelRuntimeError } from './errors.js';
import type { LibraryRegistrar } from './env.js';

const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\x00-\\x7f', blank: '\\t ', cntrl: '\\x00-\\x1f\\x7f', digit: '0-9',
  graph: '!-~', lower: 'a-z', print: ' -~', punct: '!-/:-@[-`{-~', space: '\\t\\n\\v\\f\\r ', upper: 'A-Z', word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};
const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/'.split(''));
const ESCAPES: Record<string, string> = { a: '\\x07', f: '\\f', n: '\\n', r: '\\r', t: '\\t', v: '\\v', d: '\\d', D: '\\D', s: '[\\t\\n\\f\\r ]', S: '[^\\t\\n\\f\\r ]', w: '\\w', W: '\\W', b: '\\b', B: '\\B' };
const IN_CLASS: Record<string, string> = { ...ESCAPES, s: '\\t\\n\\f\\r ', S: '', b: '' };

class Re2Error extends Error {}
const perl = (s: string): Re2Error => new Re2Error(`error parsing regexp: invalid or unsupported Perl syntax: \`${s}\``);
const badEscape = (s: string): Re2Error => new Re2Error(`error parsing regexp: invalid escape sequence: \`${s}\``);

function escapeOne(p: string, i: number, inClass: boolean): [string, number] {
  const c = p[i + 1];
  if (c === undefined) throw new Re2Error('error parsing regexp: trailing backslash at end of expression: ``');
  if (c === 'p' || c === 'P') {
    if (p[i + 2] === '{') {
      const end = p.indexOf('}', i + 3);
      if (end < 0) throw new Re2Error(`error parsing regexp: invalid character class range: \`${p.slice(i)}\``);
      return [`\\${c}{${p.slice(i + 3, end)}}`, end + 1];
    }
    return [`\\${c}{${p[i + 2] ?? ''}}`, i + 3];
  }
  if (c === 'x') {
    if (p[i + 2] === '{') {
      const end = p.indexOf('}', i + 3);
      return [`\\u{${p.slice(i + 3, end)}}`, end + 1];
    }
    return [`\\x${p.slice(i + 2, i + 4)}`, i + 4];
  }
  if (c >= '0' && c <= '7' && (c === '0' || inClass)) {
    let j = i + 1;
    let oct = '';
    while (j < p.length && oct.length < 3 && p[j] >= '0' && p[j] <= '7') oct += p[j++];
    return [`\\u{${parseInt(oct, 8).toString(16)}}`, j];
  }
  if (c >= '1' && c <= '9') throw badEscape(`\\${c}`);
  if (!inClass && (c === 'z' || c === 'A')) return [c === 'z' ? '(?![\\s\\S])' : '(?<![\\s\\S])', i + 2];
  const table = inClass ? IN_CLASS : ESCAPES;
  if (table[c] !== undefined && table[c] !== '') return [table[c], i + 2];
  if (/[A-Za-z0-9]/.test(c)) throw badEscape(`\\${c}`);
  if (JS_SYNTAX.has(c) || (inClass && c === '-')) return [`\\${c}`, i + 2];
  return [`\\u{${c.codePointAt(0)!.toString(16)}}`, i + 1 + c.length];
}

function translateClass(p: string, i: number): [string, number] {
  let out = '[';
  let j = i + 1;
  if (p[j] === '^') {
    out += '^';
    j++;
  }
  let first = true;
  while (j < p.length) {
    const c = p[j];
    if (c === ']' && !first) return [out + ']', j + 1];
    first = false;
    if (c === '[' && p[j + 1] === ':') {
      const end = p.indexOf(':]', j + 2);
      const name = end > 0 ? p.slice(j + 2, end) : '';
      const neg = name.startsWith('^');
      const set = POSIX[neg ? name.slice(1) : name];
      if (set === undefined) throw new Re2Error(`error parsing regexp: invalid character class range: \`${p.slice(j, end + 2)}\``);
      if (neg) throw perl(p.slice(j, end + 2));
      out += set;
      j = end + 2;
    } else if (c === '\\') {
      const [s, k] = escapeOne(p, j, true);
      out += s;
      j = k;
    } else if (c === '[') {
      out += '\\[';
      j++;
    } else {
      const cp = p.codePointAt(j)!;
      const ch = String.fromCodePoint(cp);
      out += ch === '/' || ch === ']' ? `\\${ch}` : ch;
      j += ch.length;
    }
  }
  throw new Re2Error(`error parsing regexp: missing closing ]: \`${p.slice(i)}\``);
}

/** The JS equivalent of an RE2 pattern, or an Error with Go's message. */
export function re2ToJs(pattern: string): RegExp | Error {
  try {
    let p = pattern;
    let flags = 'u';
    const lead = /^\(\?([imsU]+)\)/.exec(p);
    if (lead) {
      if (lead[1].includes('U')) throw perl('(?U');
      for (const f of lead[1]) if (!flags.includes(f)) flags += f;
      p = p.slice(lead[0].length);
    }
    let out = '';
    let i = 0;
    while (i < p.length) {
      const c = p[i];
      if (c === '\\') {
        if (p[i + 1] === 'Q') {
          const end = p.indexOf('\\E', i + 2);
          const lit = p.slice(i + 2, end < 0 ? p.length : end);
          out += lit.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
          i = end < 0 ? p.length : end + 2;
          continue;
        }
        const [s, k] = escapeOne(p, i, false);
        out += s;
        i = k;
      } else if (c === '[') {
        const [s, k] = translateClass(p, i);
        out += s;
        i = k;
      } else if (c === '(' && p[i + 1] === '?') {
        const rest = p.slice(i + 2);
        if (rest.startsWith('P<') || rest.startsWith('<')) {
          // Go: (?P<name> or (?<name> with a word-character name, else "invalid named capture"
          const begin = rest.startsWith('P<') ? 2 : 1;
          const end = rest.indexOf('>');
          if (end < 0) throw new Re2Error(`error parsing regexp: invalid named capture: \`${p.slice(i)}\``);
          const name = rest.slice(begin, end);
          if (!/^\w+$/.test(name)) throw new Re2Error(`error parsing regexp: invalid named capture: \`${p.slice(i, i + 2 + end + 1)}\``);
          out += `(?<${name}>`;
          i += 2 + end + 1;
        } else if (rest.startsWith(':')) {
          out += '(?:';
          i += 3;
        } else throw perl(`(?${rest.slice(0, rest[0] === '<' ? 2 : 1)}`);
      } else if ((c === '+' || c === '*' || c === '?' || c === '}') && p[i + 1] === '+') {
        throw new Re2Error(`error parsing regexp: invalid nested repetition operator: \`${c}+\``);
      } else if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
        if (m && (Number(m[1]) > 1000 || (m[3] && Number(m[3]) > 1000))) throw new Re2Error(`error parsing regexp: invalid repeat count: \`${m[0]}\``);
        if (m) {
          out += m[0];
          i += m[0].length;
        } else {
          out += '\\{';
          i++;
        }
      } else if (c === '}' || c === ']') {
        out += `\\${c}`;
        i++;
      } else if (c === '/') {
        out += '\\/';
        i++;
      } else {
        out += c;
        i++;
      }
    }
    return new RegExp(out, flags);
  } catch (e) {
    if (e instanceof Re2Error) return e;
    return new Error(`error parsing regexp: ${(e as Error).message}`);
  }
}

const cache = new Map<string, RegExp | Error>();

/** A compiled pattern (cached), or throws Go's error text. */
export function compileRe2(pattern: string, prefix = ''): RegExp {
  let re = cache.get(pattern);
  if (!re) {
    re = re2ToJs(pattern);
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, re);
  }
  if (re instanceof RegExp) return re;
  throw new CelRuntimeError(prefix + re.message);
}

export function findAll(s: string, pattern: string, n: number): string[] {
  if (n === 0) return [];
  const re = new RegExp(compileRe2(pattern, 'Illegal regex: ').source, compileRe2(pattern).flags + 'g');
  const out: string[] = [];
  let prevEnd = -1;
  for (const m of s.matchAll(re)) {
    // Go drops an empty match right after the previous match.
    if (m[0] === '' && m.index === prevEnd) continue;
    out.push(m[0]);
    prevEnd = m.index! + m[0].length;
    if (n > 0 && out.length >= n) break;
  }
  return out;
}

export function registerRegex(reg: LibraryRegistrar): void {
  const matches = (s: string, p: string): boolean => compileRe2(p).test(s);
  reg.fn('string.__k1s_matches(string): bool', matches);
  reg.fn('__k1s_matches(string, string): bool', matches);
  reg.fn('string.find(string): string', (s: string, p: string) => compileRe2(p, 'Illegal regex: ').exec(s)?.[0] ?? '');
  reg.fn('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p, -1));
  reg.fn('string.findAll(string, int): list<string>', (s: string, p: string, n: bigint) => findAll(s, p, n < 0n ? -1 : Number(n > 2n ** 31n ? 2n ** 31n : n)));
}
