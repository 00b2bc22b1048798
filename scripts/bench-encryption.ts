// Encryption-at-rest figures: Secret creates over HTTPS on a server without encryption and on one with Secrets under
// aescbc (--encryption-provider-config), rounds interleaved in one run so the ratio compares like with like.
// Without the controller manager and scheduler, as the other API-server figures.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, pct, request, startServer, stop, type Server } from './bench-server.js';
import { creates as createsAt, type Run } from './bench-custom-resources.js';

type Row = (k: string, v: string) => void;

const ARGS = ['--disable-controller-manager', '--disable-scheduler'];
const CLIENTS = 8; // as bench-custom-resources' creates
const TOTAL = 2000;
const ROUNDS = 3;
const VALUE = 'benchmark-secret-value-not-in-the-file';

const secret = (name: string) => ({
  apiVersion: 'v1', kind: 'Secret', metadata: { name, labels: { app: 'web' } },
  data: { password: Buffer.from(VALUE).toString('base64'), token: randomBytes(48).toString('base64') },
});
const creates = (s: Server, prefix: string, total?: number): Promise<Run> => createsAt(s, '/api/v1/namespaces/bench/secrets', prefix, secret, total);

export async function benchEncryption(row: Row): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-encryption-'));
  const config = join(dir, 'encryption.yaml');
  writeFileSync(config, `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers:
  - aescbc:
      keys:
      - name: key1
        secret: ${randomBytes(32).toString('base64')}
  - identity: {}
`);
  const { server: plain } = await startServer(join(dir, 'plain'), ARGS);
  const { server: encrypted } = await startServer(join(dir, 'encrypted'), [...ARGS, '--encryption-provider-config', config]);
  try {
    for (const s of [plain, encrypted]) {
      const r = await request(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
      if (r.status !== 201) throw new Error(`bench: namespace: HTTP ${r.status} ${r.body}`);
      await creates(s, 'warm', 500);
    }
    const runs: Record<'plain' | 'encrypted', Run[]> = { plain: [], encrypted: [] };
    for (let round = 0; round < ROUNDS; round++) {
      runs.plain.push(await creates(plain, `r${round}`));
      runs.encrypted.push(await creates(encrypted, `r${round}`));
    }
    // the figure means nothing unless the file holds ciphertext only
    const db = join(dir, 'encrypted', 'db', 'state.db');
    const bytes = Buffer.concat([db, `${db}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
    if (bytes.includes(Buffer.from(VALUE).toString('base64')) || !bytes.includes('k8s:enc:aescbc:v1:key1:')) {
      throw new Error('bench: the encrypted server stored Secrets in the clear');
    }
    const sum = (rs: Run[]) => {
      const lat = rs.flatMap((r) => r.lat);
      return { rate: median(rs.map((r) => r.rate)), p50: pct(lat, 50), p99: pct(lat, 99), cpuUs: median(rs.map((r) => r.cpuUs)) };
    };
    const base = sum(runs.plain);
    const on = sum(runs.encrypted);
    const fmt = (x: ReturnType<typeof sum>) => `${x.rate.toFixed(0)}/s, p50 ${x.p50.toFixed(1)} ms, p99 ${x.p99.toFixed(1)} ms; ${x.cpuUs.toFixed(0)} µs of server CPU per create`;
    const what = `${CLIENTS} HTTPS clients (${TOTAL.toLocaleString('en')} Secrets, median of ${ROUNDS} runs)`;
    row(`encryption at rest: Secret creates stored as they are, ${what}`, fmt(base));
    row(
      `encryption at rest: Secret creates encrypted with aescbc, ${what}`,
      `${fmt(on)}; ${(on.rate / base.rate).toFixed(2)}× the rate without encryption (goal ≥ 0.8×), server CPU +${(((on.cpuUs - base.cpuUs) / base.cpuUs) * 100).toFixed(0)} %`,
    );
  } finally {
    await stop(plain);
    await stop(encrypted);
    rmSync(dir, { recursive: true, force: true });
  }
}
