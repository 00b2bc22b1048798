// Evaluating CronJob schedules (robfig/cron v3 ParseStandard + SpecSchedule.Next): five fields or a descriptor,
// an optional TZ=/CRON_TZ= prefix, day-of-month and day-of-week OR-ed unless either is "*". Syntax checks and
// their messages come from the API side (src/api/batch/cronjob/schedule.ts); this file finds the next activation time.
// Times are searched on the zone's wall clock and mapped back to instants with Intl; a wall time skipped by a DST
// change never fires, a repeated one fires at its first occurrence.
import { cronParseError, timeZoneLoadError } from '../../api/batch/cronjob/schedule.js';

export interface Schedule {
  /** The first activation strictly after `ms`, or undefined when none comes within five years. */
  next(ms: number): number | undefined;
}

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const FIELDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } },
  { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } },
];

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

interface FieldSet {
  values: Set<number>;
  /** written as "*" or "?" (without a step above 1): matters for the day-of-month/day-of-week rule */
  star: boolean;
}

function parseField(text: string, b: Bounds): FieldSet {
  const values = new Set<number>();
  let star = false;
  const num = (s: string) => b.names?.[s.toLowerCase()] ?? Number(s);
  for (const expr of text.split(',').filter((x) => x !== '')) {
    const [range, stepText] = expr.split('/');
    const lowHigh = range.split('-');
    let start: number;
    let end: number;
    let exprStar = false;
    if (lowHigh[0] === '*' || lowHigh[0] === '?') {
      start = b.min;
      end = b.max;
      exprStar = true;
    } else {
      start = num(lowHigh[0]);
      end = lowHigh.length > 1 ? num(lowHigh[1]) : start;
    }
    let step = 1;
    if (stepText !== undefined) {
      step = Number(stepText);
      if (lowHigh.length === 1) end = b.max;
      if (step > 1) exprStar = false;
    }
    for (let v = start; v <= end; v += step) values.add(v);
    star ||= exprStar;
  }
  return { values, star };
}

/** The zone's wall clock for an instant, as milliseconds of a UTC date with the same fields. */
class Zone {
  private readonly fmt?: Intl.DateTimeFormat;

  constructor(readonly name: string) {
    if (name && name !== 'UTC' && name !== 'Local') {
      this.fmt = new Intl.DateTimeFormat('en-US', {
        timeZone: name, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
      });
    }
  }

  wall(ms: number): number {
    if (!this.fmt) return ms;
    const f: Record<string, number> = {};
    for (const p of this.fmt.formatToParts(new Date(ms))) if (p.type !== 'literal') f[p.type] = Number(p.value);
    const secs = Math.floor(ms / 1000) * 1000;
    return Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second) + (ms - secs);
  }

  /** Offset from UTC at an instant, in milliseconds. */
  offset(ms: number): number {
    return this.wall(ms) - ms;
  }

  /** Instants showing wall time `w`, earliest first (none inside a DST gap, two in a repeated hour). */
  instants(w: number): number[] {
    const out = new Set<number>();
    for (const probe of [w - 86_400_000, w + 86_400_000, w]) {
      const t = w - this.offset(probe);
      if (this.wall(t) === w) out.add(t);
    }
    return [...out].sort((a, b) => a - b);
  }
}

class SpecSchedule implements Schedule {
  constructor(
    private readonly f: FieldSet[],
    private readonly zone: Zone,
  ) {}

  private dayMatches(d: Date): boolean {
    const dom = this.f[2].values.has(d.getUTCDate());
    const dow = this.f[4].values.has(d.getUTCDay());
    return this.f[2].star || this.f[4].star ? dom && dow : dom || dow;
  }

  /** The first matching wall minute at or after `w`. */
  private nextWall(w: number): number | undefined {
    const d = new Date(w);
    const limit = d.getUTCFullYear() + 5;
    const [min, hour, , month] = this.f;
    while (d.getUTCFullYear() <= limit) {
      if (!month.values.has(d.getUTCMonth() + 1)) {
        d.setUTCMonth(d.getUTCMonth() + 1, 1);
        d.setUTCHours(0, 0, 0, 0);
      } else if (!this.dayMatches(d)) {
        d.setUTCDate(d.getUTCDate() + 1);
        d.setUTCHours(0, 0, 0, 0);
      } else if (!hour.values.has(d.getUTCHours())) {
        d.setUTCHours(d.getUTCHours() + 1, 0, 0, 0);
      } else if (!min.values.has(d.getUTCMinutes())) {
        d.setUTCMinutes(d.getUTCMinutes() + 1, 0, 0);
      } else return d.getTime();
    }
    return undefined;
  }

  next(ms: number): number | undefined {
    // Start at the next whole minute of the wall clock.
    let w = Math.floor(this.zone.wall(ms) / 60_000) * 60_000 + 60_000;
    const end = w + 6 * 366 * 86_400_000;
    while (w < end) {
      const hit = this.nextWall(w);
      if (hit === undefined) return undefined;
      const t = this.zone.instants(hit).find((x) => x > ms);
      if (t !== undefined) return t;
      w = hit + 60_000;
    }
    return undefined;
  }
}

/** "@every <duration>": the delay rounded down to whole seconds, at least one (ConstantDelaySchedule). */
class EverySchedule implements Schedule {
  constructor(private readonly delayMs: number) {}
  next(ms: number): number {
    return Math.floor(ms / 1000) * 1000 + this.delayMs;
  }
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function durationMs(text: string): number {
  let total = 0;
  for (const m of text.matchAll(/(\d*\.?\d*)([a-zµμ]+)/g)) total += Number(m[1]) * (UNIT_MS[m[2]] ?? 0);
  return text.startsWith('-') ? -total : total;
}

/** cron.ParseStandard; throws Error with robfig's message when the spec is invalid. */
export function parseSchedule(spec: string): Schedule {
  const err = cronParseError(spec);
  if (err) throw new Error(err);
  let zone = new Zone('');
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const i = spec.indexOf(' ');
    const name = spec.slice(spec.indexOf('=') + 1, i < 0 ? undefined : i);
    zone = new Zone(name);
    spec = i < 0 ? '' : spec.slice(i).trim();
  }
  if (spec.startsWith('@every ')) {
    const d = Math.floor(durationMs(spec.slice(7).trim()) / 1000) * 1000;
    return new EverySchedule(Math.max(d, 1000));
  }
  const fields = (DESCRIPTORS[spec] ?? spec).split(/\s+/).filter((x) => x !== '');
  return new SpecSchedule(fields.map((f, i) => parseField(f, FIELDS[i])), zone);
}

/** A zone name time.LoadLocation accepts (the empty name is UTC). */
export function validTimeZone(name: string): boolean {
  return timeZoneLoadError(name) === undefined;
}

/** Go's RFC 3339 for an instant shown in a zone: "Z" for UTC, else the "+hh:mm" offset. */
export function rfc3339InZone(ms: number, zoneName: string): string {
  const zone = new Zone(zoneName);
  const secs = Math.floor(ms / 1000) * 1000;
  const off = zone.offset(secs);
  const wall = new Date(secs + off).toISOString().slice(0, 19);
  if (off === 0) return `${wall}Z`;
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off) / 60_000;
  return `${wall}${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}
