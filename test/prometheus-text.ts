// The Prometheus text format read back by parse-prometheus-text-format (a port of the Python client's parser, with
// prom2json's output), so tests check what a scraper sees rather than matching lines by hand. That parser merges
// a histogram's labelled series into one, so samples are also read from a second parse without the TYPE lines,
// where every sample name (x_bucket, x_sum, x_count) is a family of its own with all its labels.
import { createRequire } from 'node:module';

export interface Family {
  name: string;
  help: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string> }[];
}

const parse = createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => Family[];

export interface Exposition {
  /** the families with their TYPE and HELP */
  families: Map<string, Family>;
  /** every sample by its own name (x_bucket, x_count …), with all its labels */
  samples: Map<string, Family>;
}

export function parsePrometheusText(text: string): Exposition {
  const families = new Map(parse(text).map((f) => [f.name, f]));
  const untyped = text.split('\n').filter((l) => !l.startsWith('# TYPE ')).join('\n');
  const samples = new Map<string, Family>();
  for (const f of parse(untyped)) {
    const cur = samples.get(f.name);
    if (cur) cur.metrics.push(...f.metrics);
    else samples.set(f.name, f);
  }
  return { families, samples };
}

/**
 * The value of the series of `name` whose labels include `labels`, summed over the matches (undefined without a
 * match); a histogram's name gives its count.
 */
export function sampleValue(e: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const f = e.families.get(name)?.type === 'HISTOGRAM' ? e.samples.get(`${name}_count`) : e.samples.get(name);
  const hits = f?.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v)) ?? [];
  if (!hits.length) return undefined;
  return hits.reduce((n, m) => n + Number(m.value), 0);
}

/** the label names of a family's first series */
export function labelNamesOf(e: Exposition, name: string): Set<string> {
  const f = e.families.get(name)?.type === 'HISTOGRAM' ? e.samples.get(`${name}_count`) : e.samples.get(name);
  return new Set(Object.keys(f?.metrics[0]?.labels ?? {}));
}
