// Metrics figures: ConfigMap creates over HTTPS on a server that records no metrics (--disable-metrics) and on one
// that records them (the default), rounds interleaved in one run so the ratio compares like with like; then one
// scrape of /metrics. Without the controller manager and scheduler, as the other API-server figures.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, pct, request, startServer, stop, type Server } from './bench-server.js';
import { creates as createsAt, type Run } from './bench-custom-resources.js';

type Row = (k: string, v: string) => void;

const ARGS = ['--disable-controller-manager', '--disable-scheduler'];
const CLIENTS = 8; // as bench-custom-resources' creates
const TOTAL = 2000;
const ROUNDS = 5; // the ratio's goal is tight: more rounds, and the order alternates so neither server always goes first

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'web' } }, data: { key: 'value' } });
const creates = (s: Server, prefix: string, total?: number): Promise<Run> => createsAt(s, '/api/v1/namespaces/bench/configmaps', prefix, configMap, total);

export async function benchMetrics(row: Row): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-metrics-'));
  const { server: plain } = await startServer(join(dir, 'plain'), [...ARGS, '--disable-metrics']);
  const { server: recorded } = await startServer(join(dir, 'recorded'), ARGS);
  try {
    for (const s of [plain, recorded]) {
      const r = await request(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
      if (r.status !== 201) throw new Error(`bench: namespace: HTTP ${r.status} ${r.body}`);
      await creates(s, 'warm', 500);
    }
    const runs: Record<'plain' | 'recorded', Run[]> = { plain: [], recorded: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? (['recorded', 'plain'] as const) : (['plain', 'recorded'] as const);
      for (const which of order) runs[which].push(await creates(which === 'plain' ? plain : recorded, `r${round}`));
    }
    // the counter must hold every create, or the figure means nothing
    const t0 = performance.now();
    const scrape = await request(recorded, 'GET', '/metrics');
    const scrapeMs = performance.now() - t0;
    const line = scrape.body.split('\n').find((l) => l.startsWith('apiserver_request_total{code="201"') && l.includes('resource="configmaps"') && l.includes('verb="CREATE"'));
    const counted = Number(line?.split(' ').pop());
    if (counted !== TOTAL * ROUNDS + 500) throw new Error(`bench: apiserver_request_total counts ${counted} ConfigMap creates, expected ${TOTAL * ROUNDS + 500}`);
    const sum = (rs: Run[]) => {
      const lat = rs.flatMap((r) => r.lat);
      return { rate: median(rs.map((r) => r.rate)), p50: pct(lat, 50), p99: pct(lat, 99), cpuUs: median(rs.map((r) => r.cpuUs)) };
    };
    const base = sum(runs.plain);
    const on = sum(runs.recorded);
    const fmt = (x: ReturnType<typeof sum>) => `${x.rate.toFixed(0)}/s, p50 ${x.p50.toFixed(1)} ms, p99 ${x.p99.toFixed(1)} ms; ${x.cpuUs.toFixed(0)} µs of server CPU per create`;
    const what = `${CLIENTS} HTTPS clients (${TOTAL.toLocaleString('en')} ConfigMaps, median of ${ROUNDS} runs)`;
    row(`metrics: ConfigMap creates with --disable-metrics, ${what}`, fmt(base));
    row(
      `metrics: ConfigMap creates recording metrics (the default), ${what}`,
      `${fmt(on)}; ${(on.rate / base.rate).toFixed(2)}× the rate without metrics (goal ≥ 0.97×), server CPU ${on.cpuUs >= base.cpuUs ? '+' : ''}${(((on.cpuUs - base.cpuUs) / base.cpuUs) * 100).toFixed(0)} %`,
    );
    row('metrics: one scrape of /metrics after those creates', `${scrapeMs.toFixed(0)} ms, ${(scrape.body.length / 1024).toFixed(0)} KiB, ${scrape.body.split('\n').filter((l) => l && !l.startsWith('#')).length} series`);
  } finally {
    await stop(plain);
    await stop(recorded);
    rmSync(dir, { recursive: true, force: true });
  }
}
