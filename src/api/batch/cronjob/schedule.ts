// The schedule syntax CronJob validation accepts: robfig/cron v3's ParseStandard (five fields or a descriptor,
// optional TZ=/CRON_TZ= prefix) with its exact error texts, Go's time.ParseDuration for "@every", and the time
// zone check of validateTimeZone (time.LoadLocation against the IANA database).

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = {
  min: 1,
  max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };
const FIELD_BOUNDS = [MINUTES, HOURS, DOM, MONTHS, DOW];
const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

class CronError extends Error {}

/** strconv.Atoi with Go's error text. */
function atoi(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr)) throw new CronError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (!Number.isSafeInteger(n) || Math.abs(n) > 2 ** 63) {
    throw new CronError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`);
  }
  return n;
}

function mustParseInt(expr: string): number {
  const n = atoi(expr);
  if (n < 0) throw new CronError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function intOrName(expr: string, b: Bounds): number {
  const named = b.names?.[expr.toLowerCase()];
  return named !== undefined ? named : mustParseInt(expr);
}

function checkRange(expr: string, b: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowHigh = rangeAndStep[0].split('-');
  let start: number;
  let end: number;
  if (lowHigh[0] === '*' || lowHigh[0] === '?') {
    start = b.min;
    end = b.max;
  } else {
    start = intOrName(lowHigh[0], b);
    if (lowHigh.length === 1) end = start;
    else if (lowHigh.length === 2) end = intOrName(lowHigh[1], b);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]);
    if (lowHigh.length === 1) end = b.max; // "N/step" means "N-max/step"
  } else if (rangeAndStep.length > 2) throw new CronError(`too many slashes: ${expr}`);
  if (start < b.min) throw new CronError(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  if (end > b.max) throw new CronError(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`);
}

const UNITS = new Set(['ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h']);

/** time.ParseDuration's acceptance and error texts (overflow aside). */
export function durationError(orig: string): string | undefined {
  const q = (s: string) => `"${s}"`;
  let s = orig;
  if (s[0] === '-' || s[0] === '+') s = s.slice(1);
  if (s === '0') return undefined;
  if (s === '') return `time: invalid duration ${q(orig)}`;
  while (s !== '') {
    const m = /^(\d*)(\.(\d*))?/.exec(s)!;
    if (!(s[0] === '.' || (s[0] >= '0' && s[0] <= '9'))) return `time: invalid duration ${q(orig)}`;
    if (m[1] === '' && (m[3] ?? '') === '') return `time: invalid duration ${q(orig)}`;
    s = s.slice(m[0].length);
    const u = /^[^0-9.]*/.exec(s)![0];
    if (u === '') return `time: missing unit in duration ${q(orig)}`;
    if (!UNITS.has(u)) return `time: unknown unit ${q(u)} in duration ${q(orig)}`;
    s = s.slice(u.length);
  }
  return undefined;
}

/** cron.ParseStandard: undefined when the spec parses, else the error text. */
export function cronParseError(spec: string): string | undefined {
  if (spec.length === 0) return 'empty spec string';
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const i = spec.indexOf(' ');
    const eq = spec.indexOf('=');
    const name = i < 0 ? spec.slice(eq + 1) : spec.slice(eq + 1, i);
    const tzErr = timeZoneLoadError(name);
    if (tzErr) return `provided bad location ${name}: ${tzErr}`;
    spec = i < 0 ? '' : spec.slice(i).trim();
  }
  if (spec.startsWith('@')) {
    if (DESCRIPTORS.has(spec)) return undefined;
    if (spec.startsWith('@every ')) {
      const err = durationError(spec.slice('@every '.length));
      return err ? `failed to parse duration ${spec}: ${err}` : undefined;
    }
    return `unrecognized descriptor: ${spec}`;
  }
  const fields = spec.split(/[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/).filter((f) => f !== '');
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`;
  try {
    fields.forEach((f, i) => {
      for (const expr of f.split(',').filter((x) => x !== '')) checkRange(expr, FIELD_BOUNDS[i]);
    });
  } catch (e) {
    if (e instanceof CronError) return e.message;
    throw e;
  }
  return undefined;
}

// Go's LoadLocation is case-sensitive and knows the link names; ICU accepts any case and canonicalises, so a name
// is taken when ICU knows it and it either is a canonical ICU id or has the tz database's capitalisation.
const tzCase = /^(?:[A-Z][A-Za-z0-9_+-]*)(?:\/[A-Z][A-Za-z0-9_+-]*)*$/;

/** time.LoadLocation's error for a name, or undefined when it loads. */
export function timeZoneLoadError(name: string): string | undefined {
  if (name === '' || name === 'UTC' || name === 'Local') return undefined;
  let known = false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    known = Intl.supportedValuesOf('timeZone').includes(name) || tzCase.test(name) || /^Etc\/GMT[+-]\d+$/.test(name);
  } catch {
    known = false;
  }
  return known ? undefined : `unknown time zone ${name}`;
}
