// Admission figures: ConfigMap creates with no admission configuration, with one matching validating webhook (a
// local HTTPS server in this process that allows everything), and with one ValidatingAdmissionPolicy (three CEL
// validations), interleaved in one run so the ratios compare like with like. Without the controller manager and
// scheduler, as the other API-server figures.
import https from 'node:https';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCa, createServingCert } from '../src/pki/certs.js';
import { median, pct, request, startServer, stop, type Server } from './bench-server.js';
import { creates as createsAt, type Run } from './bench-custom-resources.js';

type Row = (k: string, v: string) => void;
type Obj = Record<string, unknown>;

const ARGS = ['--disable-controller-manager', '--disable-scheduler'];
const CLIENTS = 8; // as bench-custom-resources' creates
const TOTAL = 2000;
const ROUNDS = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rules = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }];
const onlyNamespace = (ns: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': ns } });

const configMap = (name: string): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'web', owner: 'bench' } }, data: { key: 'value', mode: 'strict' } });
const creates = (s: Server, ns: string, prefix: string, total?: number): Promise<Run> => createsAt(s, `/api/v1/namespaces/${ns}/configmaps`, prefix, configMap, total);

async function must(s: Server, path: string, body: Obj): Promise<void> {
  const r = await request(s, 'POST', path, body);
  if (r.status >= 300) throw new Error(`bench: POST ${path}: HTTP ${r.status} ${r.body.slice(0, 400)}`);
}

/** Waits until a dry-run create in `ns` is refused: the configuration is in force. */
async function inForce(s: Server, ns: string, body: Obj, what: string): Promise<void> {
  const t0 = performance.now();
  while ((await request(s, 'POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, body)).status < 300) {
    if (performance.now() - t0 > 10_000) throw new Error(`bench: ${what} not in force`);
    await sleep(20);
  }
}

export async function benchAdmission(row: Row): Promise<void> {
  const ca = await createCa({ commonName: 'bench-webhook-ca' });
  const cert = await createServingCert(ca, { hostnames: ['localhost'], ips: ['127.0.0.1'] });
  let calls = 0;
  const hooks = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      calls++;
      const review = JSON.parse(body) as { request: { uid: string; object?: { data?: Obj } } };
      const allowed = !('deny' in (review.request.object?.data ?? {}));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed } }));
    });
  });
  hooks.listen(0, '127.0.0.1');
  await once(hooks, 'listening');
  const port = (hooks.address() as AddressInfo).port;
  const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-admission-'));
  const { server: s } = await startServer(dir, ARGS);
  try {
    for (const ns of ['plain', 'hooked', 'policed']) await must(s, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await must(s, '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'bench' },
      webhooks: [{ name: 'bench.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', rules, namespaceSelector: onlyNamespace('hooked'), clientConfig: { url: `https://127.0.0.1:${port}/validate`, caBundle: Buffer.from(ca.certPem).toString('base64') } }],
    });
    await must(s, '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'bench' },
      spec: {
        failurePolicy: 'Fail', matchConstraints: { resourceRules: rules },
        validations: [
          { expression: "object.metadata.?labels.owner.orValue('') != ''", message: 'an owner label is required' },
          { expression: 'size(object.data) <= 8' },
          { expression: "!has(object.data.mode) || object.data.mode in ['strict', 'lax']" },
        ],
      },
    });
    await must(s, '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'bench' },
      spec: { policyName: 'bench', validationActions: ['Deny'], matchResources: { namespaceSelector: onlyNamespace('policed') } },
    });
    // both must act, or the figures mean nothing
    await inForce(s, 'hooked', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe' }, data: { deny: 'x' } }, 'webhook');
    await inForce(s, 'policed', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe' }, data: { mode: 'other' } }, 'policy');
    const kinds = ['plain', 'hooked', 'policed'] as const;
    for (const k of kinds) await creates(s, k, 'warm', 500);
    const runs: Record<string, Run[]> = { plain: [], hooked: [], policed: [] };
    calls = 0;
    for (let round = 0; round < ROUNDS; round++) for (const k of kinds) runs[k].push(await creates(s, k, `r${round}`));
    if (calls !== TOTAL * ROUNDS) throw new Error(`bench: the webhook saw ${calls} creates, expected ${TOTAL * ROUNDS}`);
    const sum = (rs: Run[]) => {
      const lat = rs.flatMap((r) => r.lat);
      return { rate: median(rs.map((r) => r.rate)), p50: pct(lat, 50), p99: pct(lat, 99), cpuUs: median(rs.map((r) => r.cpuUs)) };
    };
    const base = sum(runs.plain);
    const fmt = (x: ReturnType<typeof sum>) => `${x.rate.toFixed(0)}/s, p50 ${x.p50.toFixed(1)} ms, p99 ${x.p99.toFixed(1)} ms; ${x.cpuUs.toFixed(0)} µs of server CPU per create`;
    const vs = (x: ReturnType<typeof sum>) => `p50 ${(x.p50 / base.p50).toFixed(2)}×, p99 ${(x.p99 / base.p99).toFixed(2)}× of no admission configuration; server CPU +${(((x.cpuUs - base.cpuUs) / base.cpuUs) * 100).toFixed(0)} %`;
    const what = `${CLIENTS} HTTPS clients (${TOTAL.toLocaleString('en')} ConfigMaps, median of ${ROUNDS} runs)`;
    row(`admission: ConfigMap creates without webhooks or policies, ${what}`, fmt(base));
    const hooked = sum(runs.hooked);
    row(`admission: ConfigMap creates with one matching validating webhook (local HTTPS server in the bench process), ${what}`, `${fmt(hooked)}; ${vs(hooked)}`);
    const policed = sum(runs.policed);
    row(`admission: ConfigMap creates with one ValidatingAdmissionPolicy (3 CEL validations), ${what}`, `${fmt(policed)}; ${vs(policed)} (goal ≤ +20 %)`);
  } finally {
    await stop(s);
    rmSync(dir, { recursive: true, force: true });
    hooks.closeAllConnections();
    hooks.close();
  }
}
