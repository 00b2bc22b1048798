// Audit figures: ConfigMap creates over HTTPS on a server without auditing and on one with a policy at Metadata
// for every request (written to a file), rounds interleaved in one run so the ratio compares like with like.
// Without the controller manager and scheduler, as the other API-server figures.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, pct, request, startServer, stop, type Server } from './bench-server.js';
import { creates as createsAt, type Run } from './bench-custom-resources.js';

type Row = (k: string, v: string) => void;

const ARGS = ['--disable-controller-manager', '--disable-scheduler'];
const CLIENTS = 8; // as bench-custom-resources' creates
const TOTAL = 2000;
const ROUNDS = 3;
const POLICY = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n';

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'web' } }, data: { key: 'value' } });
const creates = (s: Server, prefix: string, total?: number): Promise<Run> => createsAt(s, '/api/v1/namespaces/bench/configmaps', prefix, configMap, total);

export async function benchAudit(row: Row): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-audit-'));
  const policy = join(dir, 'policy.yaml');
  const log = join(dir, 'audit.log');
  writeFileSync(policy, POLICY);
  const { server: plain } = await startServer(join(dir, 'plain'), ARGS);
  const { server: audited } = await startServer(join(dir, 'audited'), [...ARGS, '--audit-policy-file', policy, '--audit-log-path', log]);
  try {
    for (const s of [plain, audited]) {
      const r = await request(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
      if (r.status !== 201) throw new Error(`bench: namespace: HTTP ${r.status} ${r.body}`);
      await creates(s, 'warm', 500);
    }
    const runs: Record<'plain' | 'audited', Run[]> = { plain: [], audited: [] };
    for (let round = 0; round < ROUNDS; round++) {
      runs.plain.push(await creates(plain, `r${round}`));
      runs.audited.push(await creates(audited, `r${round}`));
    }
    // the audit log must hold every create (RequestReceived and ResponseComplete), or the figure means nothing
    await new Promise((r) => setTimeout(r, 500));
    const logged = readFileSync(log, 'utf8').split('\n').filter((l) => l.includes('"verb":"create"') && l.includes('"stage":"ResponseComplete"') && l.includes('"resource":"configmaps"')).length;
    if (logged < TOTAL * ROUNDS + 500) throw new Error(`bench: the audit log has ${logged} create events, expected ${TOTAL * ROUNDS + 500}`);
    const sum = (rs: Run[]) => {
      const lat = rs.flatMap((r) => r.lat);
      return { rate: median(rs.map((r) => r.rate)), p50: pct(lat, 50), p99: pct(lat, 99), cpuUs: median(rs.map((r) => r.cpuUs)) };
    };
    const base = sum(runs.plain);
    const on = sum(runs.audited);
    const fmt = (x: ReturnType<typeof sum>) => `${x.rate.toFixed(0)}/s, p50 ${x.p50.toFixed(1)} ms, p99 ${x.p99.toFixed(1)} ms; ${x.cpuUs.toFixed(0)} µs of server CPU per create`;
    const what = `${CLIENTS} HTTPS clients (${TOTAL.toLocaleString('en')} ConfigMaps, median of ${ROUNDS} runs)`;
    row(`audit: ConfigMap creates without an audit policy, ${what}`, fmt(base));
    row(
      `audit: ConfigMap creates with every request audited at Metadata to a file, ${what}`,
      `${fmt(on)}; ${(on.rate / base.rate).toFixed(2)}× the rate without auditing (goal ≥ 0.8×), server CPU +${(((on.cpuUs - base.cpuUs) / base.cpuUs) * 100).toFixed(0)} %`,
    );
  } finally {
    await stop(plain);
    await stop(audited);
    rmSync(dir, { recursive: true, force: true });
  }
}
