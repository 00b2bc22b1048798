// Kubernetes' URL library over a port of Go's net/url parsing (Parse and ParseRequestURI), with Go's errors.
import { CelRuntimeError } from './errors.js';
import type { LibraryRegistrar } from './env.js';

export class CelURL {
  constructor(
    readonly raw: string,
    readonly scheme: string,
    readonly host: string,
    readonly rawPath: string,
    readonly rawQuery: string,
  ) {}
  toString(): string {
    return this.raw;
  }
}

const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9A-Fa-f]$/.test(c);
type Mode = 'host' | 'path' | 'query';

function shouldEscape(c: string, mode: Mode): boolean {
  if (/^[A-Za-z0-9]$/.test(c)) return false;
  if (mode === 'host' && "!$&'()*+,;=:[]<>\"".includes(c)) return false;
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    if (mode === 'path') return c === '?';
    return true;
  }
  return true;
}

function unescape(s: string, mode: Mode): string {
  const bytes: number[] = [];
  const buf = Buffer.from(s, 'utf8');
  for (let i = 0; i < buf.length; i++) {
    const c = String.fromCharCode(buf[i]);
    if (c === '%') {
      const a = String.fromCharCode(buf[i + 1] ?? 0);
      const b = String.fromCharCode(buf[i + 2] ?? 0);
      if (!isHex(a) || !isHex(b)) {
        const tail = buf.subarray(i, i + 3).toString('utf8');
        throw new Error(`invalid URL escape ${JSON.stringify(tail)}`);
      }
      if (mode === 'host' && parseInt(a, 16) < 8 && `%${a}${b}` !== '%25') throw new Error(`invalid URL escape ${JSON.stringify(`%${a}${b}`)}`);
      bytes.push(parseInt(a + b, 16));
      i += 2;
    } else if (c === '+' && mode === 'query') bytes.push(0x20);
    else {
      if (mode === 'host' && buf[i] < 0x80 && shouldEscape(c, 'host')) throw new Error(`invalid character ${JSON.stringify(c)} in host name`);
      bytes.push(buf[i]);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function escapePath(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && !shouldEscape(c, 'path') ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const validPort = (p: string): boolean => p === '' || /^:[0-9]*$/.test(p);

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new Error("missing ']' in host");
    const port = host.slice(i + 1);
    if (!validPort(port)) throw new Error(`invalid port ${JSON.stringify(port)} after host`);
  } else {
    const i = host.lastIndexOf(':');
    if (i >= 0 && !validPort(host.slice(i))) throw new Error(`invalid port ${JSON.stringify(host.slice(i))} after host`);
  }
  return unescape(host, 'host');
}

function parseAuthority(authority: string): string {
  const at = authority.lastIndexOf('@');
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (at >= 0 && !/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(authority.slice(0, at))) throw new Error('net/url: invalid userinfo');
  return host;
}

function parseInner(raw: string, viaRequest: boolean): CelURL {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new Error('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new Error('empty url');
  if (raw === '*') return new CelURL(raw, '', '', '*', '');
  let scheme = '';
  let rest = raw;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new Error('missing protocol scheme');
      scheme = raw.slice(0, i).toLowerCase();
      rest = raw.slice(i + 1);
    }
    break;
  }
  let query = '';
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      query = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (scheme) return new CelURL(raw, scheme, '', '', query);
    if (viaRequest) throw new Error('invalid URI for request');
    if (rest.split('/')[0].includes(':')) throw new Error('first path segment in URL cannot contain colon');
  }
  let host = '';
  if ((scheme || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    host = parseAuthority(authority);
  }
  unescape(rest, 'path');
  return new CelURL(raw, scheme, host, rest, query);
}

/** Go's url.ParseRequestURI (fragment kept) or url.Parse (fragment cut); errors as Go prints them. */
export function parseURL(raw: string, viaRequest: boolean): CelURL {
  let s = raw;
  if (!viaRequest) {
    const h = s.indexOf('#');
    if (h >= 0) {
      unescapeFragment(s.slice(h + 1));
      s = s.slice(0, h);
    }
  }
  try {
    return parseInner(s, viaRequest);
  } catch (e) {
    throw new Error(`parse ${JSON.stringify(raw)}: ${(e as Error).message}`);
  }
}

function unescapeFragment(f: string): void {
  try {
    unescape(f, 'path');
  } catch (e) {
    throw new Error(`parse ${JSON.stringify(f)}: ${(e as Error).message}`);
  }
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && validPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

function escapedPath(u: CelURL): string {
  let path: string;
  try {
    path = unescape(u.rawPath, 'path');
  } catch {
    return escapePath(u.rawPath);
  }
  const valid = [...u.rawPath].every((c, i, a) => (c === '%' ? isHex(a[i + 1]) && isHex(a[i + 2]) : "!$&'()*+,;=:@[]".includes(c) || !shouldEscape(c, 'path')));
  return valid && u.rawPath !== '' ? u.rawPath : escapePath(path);
}

function query(u: CelURL): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const part of u.rawQuery.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    try {
      const k = unescape(eq < 0 ? part : part.slice(0, eq), 'query');
      const v = unescape(eq < 0 ? '' : part.slice(eq + 1), 'query');
      m.set(k, [...(m.get(k) ?? []), v]);
    } catch {
      // Go's ParseQuery skips a pair it cannot unescape
    }
  }
  return m;
}

export function isURL(s: string): boolean {
  try {
    parseURL(s, true);
    return true;
  } catch {
    return false;
  }
}

export function registerUrls(reg: LibraryRegistrar): void {
  reg.type('kubernetes.URL', CelURL, ((a: CelURL, b: CelURL) => a.raw === b.raw) as never);
  reg.fn('url(string): kubernetes.URL', (s: string) => {
    try {
      parseURL(s, true);
      return parseURL(s, false);
    } catch (e) {
      throw new CelRuntimeError(`URL parse error during conversion from string: ${(e as Error).message}`);
    }
  });
  reg.fn('isURL(string): bool', isURL);
  reg.fn('kubernetes.URL.getScheme(): string', (u: CelURL) => u.scheme);
  reg.fn('kubernetes.URL.getHost(): string', (u: CelURL) => u.host);
  reg.fn('kubernetes.URL.getHostname(): string', (u: CelURL) => splitHostPort(u.host)[0]);
  reg.fn('kubernetes.URL.getPort(): string', (u: CelURL) => splitHostPort(u.host)[1]);
  reg.fn('kubernetes.URL.getEscapedPath(): string', escapedPath);
  reg.fn('kubernetes.URL.getQuery(): map<string, list<string>>', query);
}
