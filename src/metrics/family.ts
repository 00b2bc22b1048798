// Metric families with cheap recording: a cell per label-value tuple, found once and kept by the caller, so the hot
// path is a few additions (prom-client's own metrics hash and validate the labels on every observation). The
// families implement prom-client's metric shape, so its Registry does the text and OpenMetrics exposition.

export type Stability = 'ALPHA' | 'BETA' | 'STABLE';

export interface FamilyOptions {
  name: string;
  help: string;
  stability: Stability;
  labelNames?: readonly string[];
}

/** A sample as prom-client's Registry renders it. */
interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

type Collect = () => void | Promise<void>;

/** Go's strconv.FormatFloat(v, 'g', -1, 64) for bucket bounds: 1e-08, 0.005, 60, 1e+06 (as kube prints `le`). */
export function goBound(v: number): string {
  if (v === Infinity) return '+Inf';
  const exp = v === 0 ? 0 : Math.floor(Math.log10(Math.abs(v)));
  const s = exp < -4 || exp >= 21 ? v.toExponential() : String(v);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

abstract class Family<C> {
  readonly name: string;
  readonly help: string;
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  readonly labelNames: readonly string[];
  private readonly cells = new Map<string, C>();
  /** each cell's label pairs (sorted by name) and the values in that order, which series are sorted by */
  private readonly labelsOf = new Map<C, { labels: Record<string, string>; order: string }>();
  /** refreshes cells before a scrape (gauges read at scrape time) */
  collect?: Collect;

  constructor(o: FamilyOptions) {
    this.name = o.name;
    // kube prints each family's stability level before its help text
    this.help = `[${o.stability}] ${o.help}`;
    this.labelNames = o.labelNames ?? [];
  }

  protected abstract newCell(): C;

  /** The cell of these label values (in labelNames order); keep it to record without a lookup. */
  with(...values: string[]): C {
    const key = values.length === 1 ? values[0]! : values.join('\u0000');
    let c = this.cells.get(key);
    if (!c) {
      if (values.length !== this.labelNames.length) throw new Error(`${this.name}: ${values.length} label values for ${this.labelNames.length} labels`);
      c = this.newCell();
      this.cells.set(key, c);
      const labels: Record<string, string> = {};
      // label pairs sorted by name, as client_golang writes them
      const order = this.labelNames.map((n, i) => [n, values[i]!] as const).sort((a, b) => (a[0] < b[0] ? -1 : 1));
      for (const [n, v] of order) labels[n] = v;
      this.labelsOf.set(c, { labels, order: order.map((x) => x[1]).join('\u0000') });
    }
    return c;
  }

  /** Drops every cell (a gauge that is rebuilt at each scrape). */
  reset(): void {
    this.cells.clear();
    this.labelsOf.clear();
  }

  delete(...values: string[]): void {
    const key = values.join('\u0000');
    const c = this.cells.get(key);
    if (c) this.labelsOf.delete(c);
    this.cells.delete(key);
  }

  protected abstract samples(cell: C, labels: Record<string, string>): Sample[];

  /** prom-client's Metric.get(): the family with its samples, series sorted by label values as client_golang does */
  async get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: string }> {
    if (this.collect) await this.collect();
    const rows = [...this.labelsOf.entries()].sort((a, b) => (a[1].order < b[1].order ? -1 : a[1].order > b[1].order ? 1 : 0));
    const values: Sample[] = [];
    for (const [c, { labels }] of rows) values.push(...this.samples(c, labels));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' };
  }
}

export class CounterCell {
  value = 0;
  inc(n = 1): void {
    this.value += n;
  }
}

export class Counter extends Family<CounterCell> {
  readonly type = 'counter';
  protected newCell(): CounterCell {
    return new CounterCell();
  }
  protected samples(c: CounterCell, labels: Record<string, string>): Sample[] {
    return [{ value: c.value, labels }];
  }
}

export class GaugeCell {
  value = 0;
  set(v: number): void {
    this.value = v;
  }
  inc(n = 1): void {
    this.value += n;
  }
  dec(n = 1): void {
    this.value -= n;
  }
}

export class Gauge extends Family<GaugeCell> {
  readonly type = 'gauge';
  protected newCell(): GaugeCell {
    return new GaugeCell();
  }
  protected samples(c: GaugeCell, labels: Record<string, string>): Sample[] {
    return [{ value: c.value, labels }];
  }
}

export class HistogramCell {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }
  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    if (i < b.length) this.counts[i]!++;
    this.sum += v;
    this.count++;
  }
}

export class Histogram extends Family<HistogramCell> {
  readonly type = 'histogram';
  readonly buckets: readonly number[];
  private readonly les: string[];
  constructor(o: FamilyOptions & { buckets: readonly number[] }) {
    super(o);
    this.buckets = o.buckets;
    this.les = o.buckets.map(goBound);
  }
  protected newCell(): HistogramCell {
    return new HistogramCell(this.buckets);
  }
  protected samples(c: HistogramCell, labels: Record<string, string>): Sample[] {
    const out: Sample[] = [];
    let cum = 0;
    for (let i = 0; i < this.les.length; i++) {
      cum += c.counts[i]!;
      out.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: this.les[i]! }, value: cum });
    }
    out.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: c.count });
    out.push({ metricName: `${this.name}_sum`, labels, value: c.sum });
    out.push({ metricName: `${this.name}_count`, labels, value: c.count });
    return out;
  }
}

/** prometheus.ExponentialBuckets(start, factor, count) */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const out: number[] = [];
  for (let i = 0, v = start; i < count; i++, v *= factor) out.push(Number(v.toPrecision(12)));
  return out;
}
