// The string formats a CRD schema's `format` checks (apiextensions-apiserver's supported formats over kube-openapi's
// strfmt registry, Kubernetes 1.33). Any other format is accepted without a check, as the apiserver strips it.
import { isIP } from 'node:net';

const HOSTNAME = /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z0-9-\p{L}]){2,63})$/u;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/;
const MAC = /^([0-9a-fA-F]{2}([:-])){5}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{2}([:-])){19}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$/;
const HEXCOLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGBCOLOR = /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const BSON = /^[0-9a-fA-F]{24}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/;
// strfmt.ParseDuration: Go-style units plus d and w, several number-unit pairs with optional spaces
const DURATION = /^(\s*[-+]?\d+(\.\d+)?\s*(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)\s*)+$/;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

function isbn10(s: string): boolean {
  const c = s.replace(/[\s-]/g, '');
  if (!/^\d{9}[\dX]$/.test(c)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (c[i] === 'X' ? 10 : Number(c[i])) * (10 - i);
  return sum % 11 === 0;
}

function isbn13(s: string): boolean {
  const c = s.replace(/[\s-]/g, '');
  if (!/^\d{13}$/.test(c)) return false;
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(c[i]) * (i % 2 ? 3 : 1);
  return sum % 10 === 0;
}

function luhn(s: string): boolean {
  const c = s.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(c)) return false;
  let sum = 0;
  for (let i = 0; i < c.length; i++) {
    let d = Number(c[c.length - 1 - i]);
    if (i % 2) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

function cidr(s: string): boolean {
  const m = /^(.+)\/(\d{1,3})$/.exec(s);
  if (!m) return false;
  const v = isIP(m[1]!);
  return v !== 0 && Number(m[2]) <= (v === 4 ? 32 : 128);
}

function uri(s: string): boolean {
  // url.ParseRequestURI: an absolute URI or an absolute path
  if (s.startsWith('/')) return !/\s/.test(s);
  try {
    return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) && !!new URL(s);
  } catch {
    return false;
  }
}

const checks: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => BSON.test(s),
  uri,
  email: (s) => EMAIL.test(s),
  hostname: (s) => s.length <= 255 && HOSTNAME.test(s),
  ipv4: (s) => isIP(s) === 4,
  ipv6: (s) => isIP(s) === 6,
  cidr,
  mac: (s) => MAC.test(s),
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => isbn10(s) || isbn13(s),
  isbn10,
  isbn13,
  creditcard: luhn,
  ssn: (s) => SSN.test(s),
  hexcolor: (s) => HEXCOLOR.test(s),
  rgbcolor: (s) => RGBCOLOR.test(s),
  byte: (s) => BASE64.test(s),
  password: () => true,
  date: (s) => {
    const m = DATE.exec(s);
    return !!m && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
  },
  duration: (s) => DURATION.test(s),
  datetime: dateTime,
  'date-time': dateTime,
};

function dateTime(s: string): boolean {
  const m = DATETIME.exec(s);
  if (!m || !validDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
  return Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 61;
}

/** Whether `s` has the named format; formats the apiserver does not support always pass. */
export function checkFormat(format: string, s: string): boolean {
  const check = checks[format];
  return check ? check(s) : true;
}
