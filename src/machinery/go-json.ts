// What Go's encoding/json writes and says, for clients that compare bytes or match on error texts: its encoder's
// output (HTML-safe escapes, a newline after each value, MarshalIndent for ?pretty) and its scanner's syntax errors.
import { goQuote } from './errors.js';

const HTML_UNSAFE = /[<>&\u2028\u2029]/;
const HTML_UNSAFE_ALL = /[<>&\u2028\u2029]/g;
const escapes: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/**
 * JSON text as encoding/json escapes it: `<`, `>`, `&`, U+2028 and U+2029 only ever appear inside strings in JSON,
 * so replacing them anywhere in the text is the same as Go escaping them in strings.
 */
export function goHtmlSafe(text: string): string {
  return HTML_UNSAFE.test(text) ? text.replace(HTML_UNSAFE_ALL, (c) => escapes[c]!) : text;
}

/** A response body as kube's JSON serializer writes it with json.Encoder: compact, then a newline. */
export function goJsonBody(compactText: string): string {
  return goHtmlSafe(compactText) + '\n';
}

/** A response body for ?pretty: MarshalIndent with two spaces, no newline after it. */
export function goJsonPretty(value: unknown): string {
  return goHtmlSafe(JSON.stringify(value, null, 2));
}

/** encoding/json's first syntax error in data (its scanner's texts), or undefined when data is valid JSON. */
export function goJsonSyntaxError(data: Buffer): string | undefined {
  let i = 0;
  class Bad extends Error {}
  const quoteChar = (c: number) => (c === 0x27 ? "'\\''" : c === 0x22 ? `'"'` : `'${goQuote(String.fromCharCode(c)).slice(1, -1)}'`);
  const bad = (context: string): never => {
    throw new Bad(i >= data.length ? 'unexpected end of JSON input' : `invalid character ${quoteChar(data[i]!)} ${context}`);
  };
  const ws = () => {
    while (i < data.length && (data[i] === 0x20 || data[i] === 0x09 || data[i] === 0x0a || data[i] === 0x0d)) i++;
  };
  const digits = () => {
    while (data[i]! >= 0x30 && data[i]! <= 0x39) i++;
  };
  const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
  const str = () => {
    for (i++; ; i++) {
      const c = data[i];
      if (c === undefined) bad('');
      if (c === 0x22) return void i++;
      if (c! < 0x20) bad('in string literal');
      if (c === 0x5c) {
        i++;
        if (data[i] === 0x75) {
          for (let k = 0; k < 4; k++) if (!/[0-9a-fA-F]/.test(String.fromCharCode(data[++i] ?? 0x20))) bad('in \\u hexadecimal character escape');
        } else if (!'"\\/bfnrt'.includes(String.fromCharCode(data[i] ?? 0x20)) || data[i] === undefined) bad('in string escape code');
      }
    }
  };
  const value = (): void => {
    ws();
    const c = data[i];
    if (c === 0x7b) {
      i++;
      ws();
      if (data[i] === 0x7d) return void i++;
      for (;;) {
        if (data[i] !== 0x22) bad('looking for beginning of object key string');
        str();
        ws();
        if (data[i] !== 0x3a) bad('after object key');
        i++;
        value();
        ws();
        if (data[i] === 0x7d) return void i++;
        if (data[i] !== 0x2c) bad('after object key:value pair');
        i++;
        ws();
      }
    }
    if (c === 0x5b) {
      i++;
      ws();
      if (data[i] === 0x5d) return void i++;
      for (;;) {
        value();
        ws();
        if (data[i] === 0x5d) return void i++;
        if (data[i] !== 0x2c) bad('after array element');
        i++;
      }
    }
    if (c === 0x22) return str();
    if (c === 0x2d || isDigit(c)) {
      if (c === 0x2d && !isDigit(data[++i])) bad('in numeric literal');
      if (data[i] === 0x30) i++;
      else digits();
      if (data[i] === 0x2e) {
        if (!isDigit(data[++i])) bad('after decimal point in numeric literal');
        digits();
      }
      if (data[i] === 0x65 || data[i] === 0x45) {
        if (data[++i] === 0x2b || data[i] === 0x2d) i++;
        if (!isDigit(data[i])) bad('in exponent of numeric literal');
        digits();
      }
      return;
    }
    for (const word of ['true', 'false', 'null']) {
      if (c !== word.charCodeAt(0)) continue;
      for (let k = 1; k < word.length; k++) if (data[++i] !== word.charCodeAt(k)) bad(`in literal ${word} (expecting '${word[k]}')`);
      return void i++;
    }
    bad('looking for beginning of value');
  };
  try {
    value();
    ws();
    if (i < data.length) bad('after top-level value');
    return undefined;
  } catch (e) {
    if (e instanceof Bad) return e.message;
    throw e;
  }
}
