// `k1s certs check|rotate`: the certificates of a cluster's data dir, when they expire, and renewing the leaves in
// place with the same CAs (k3s' `certificate rotate`, kubeadm's `certs check-expiration` / `certs renew`).
import { X509Certificate } from 'node:crypto';
import { join, resolve } from 'node:path';
import { connect } from 'node:tls';
import { parseArgs } from 'node:util';
import { dataDirTarget, invalidName, type DataDirTarget } from './clusters.js';
import { userKubeconfigPath } from './kubeconfig-merge.js';
import { formatTable } from './status.js';
import { expiryWarnings, readInventory, type CertificateInfo } from '../pki/inventory.js';

const help = `Usage: k1s certs <check|rotate> [NAME] [flags]

Lists and renews the certificates of a cluster: its CA, the API server's serving certificate, the admin client
certificate of its kubeconfig, the front-proxy CA and client certificate, and any other certificate in DATA-DIR/tls.

Commands:
  check    every certificate with its subject, issuer, validity and days left; warns about those that expire
           within 30 days; exit status 1 when one has expired
  rotate   new certificates and keys, in place, for every certificate the cluster's CAs signed, with the same
           subject, names and usage; the CAs are kept, so clients that trust them keep working. A running server
           serves the new certificate at once (open connections and watches carry on); a stopped one uses them at
           its next start. Kubeconfigs holding a replaced client certificate are updated: the cluster's own, the
           one "k1s start" merged into ($KUBECONFIG or ~/.kube/config) and any given with --kubeconfig.
           A CA is never rotated (see "k1s certs check" for its expiry).

Examples:
  k1s certs check
  k1s certs check dev -o json
  k1s certs rotate --data-dir /var/lib/k1s
  k1s certs rotate --kubeconfig /tmp/k1s/kubeconfig

Flags:
  --name NAME          the cluster started with k1s start (same as the NAME argument; default k1s)
  --data-dir DIR       the data dir of a cluster run with k1s server (default ~/.k1s, /var/lib/k1s as root;
                       used when no cluster was made with k1s start)
  --kubeconfig FILE    rotate: also update this kubeconfig (repeatable)
  -o, --output F       check: text (default) or json
  -h, --help           show this help

Exit status: 0 done, 1 failed (or, for check, a certificate has expired), 2 usage error.`;

const time = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

function statusOf(c: CertificateInfo): string {
  if (c.expired) return 'EXPIRED';
  return c.daysLeft < 30 ? 'expiring' : 'ok';
}

async function check(t: DataDirTarget, output: string): Promise<number> {
  const tls = join(t.dataDir, 'tls');
  const inv = await readInventory(tls);
  if (!inv.certificates.length && !inv.unreadable.length) {
    console.error(`k1s certs check: no certificates in ${tls}: start the cluster first (k1s start, or k1s server --data-dir ${t.dataDir})`);
    return 1;
  }
  const warnings = expiryWarnings(inv.certificates);
  if (output === 'json') {
    console.log(JSON.stringify({ directory: tls, certificates: inv.certificates, unreadable: inv.unreadable, warnings }, null, 2));
  } else {
    const rows = inv.certificates.map((c) => [c.name, c.subject, c.issuer, time(c.notBefore), time(c.notAfter), String(Math.max(c.daysLeft, 0)), statusOf(c)]);
    console.log(formatTable(['CERTIFICATE', 'SUBJECT', 'ISSUER', 'NOT BEFORE', 'NOT AFTER', 'DAYS LEFT', 'STATUS'], rows));
    for (const w of warnings) console.error(`warning: ${w}`);
    for (const u of inv.unreadable) console.error(`error: ${u.path}: ${u.error}`);
  }
  const expired = inv.certificates.filter((c) => c.expired);
  if (expired.length) {
    const leaves = expired.some((c) => !c.isCA);
    console.error(`k1s certs check: expired: ${expired.map((c) => c.name).join(', ')}${leaves ? ': renew with "k1s certs rotate"' : ''}`);
  }
  return expired.length || inv.unreadable.length ? 1 : 0;
}

/** The kubeconfigs that may hold a k1s client certificate: the data dir's own, the user's, and those named. */
function kubeconfigCandidates(dataDir: string, extra: string[]): string[] {
  const user = process.env.KUBECONFIG ? process.env.KUBECONFIG.split(':').filter((p) => p !== '') : [userKubeconfigPath()];
  return [...new Set([join(dataDir, 'kubeconfig.yaml'), join(dataDir, 'kubeconfig'), ...user, ...extra].map((p) => resolve(p)))];
}

/** The certificate a TLS server presents (its DER), or undefined when nothing answers. */
function servedCertificate(url: string): Promise<Buffer | undefined> {
  const u = new URL(url);
  return new Promise((res) => {
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const s = connect({ host, port: Number(u.port || 443), rejectUnauthorized: false, servername: host.includes(':') || /^[\d.]+$/.test(host) ? undefined : host }, () => {
      res(s.getPeerX509Certificate()?.raw);
      s.end();
    });
    s.setTimeout(2000, () => s.destroy());
    s.on('error', () => res(undefined));
    s.on('close', () => res(undefined));
  });
}

async function rotate(t: DataDirTarget, kubeconfigs: string[]): Promise<number> {
  const tls = join(t.dataDir, 'tls');
  const { rotateLeafCertificates } = await import('../pki/rotate.js');
  const { replaceKubeconfigCredentials } = await import('../pki/kubeconfig-credentials.js');
  let result;
  try {
    result = await rotateLeafCertificates(tls);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    console.error(err.code === 'ENOENT' ? `k1s certs rotate: no certificates in ${tls}: start the cluster first` : `k1s certs rotate: ${err.message}`);
    return 1;
  }
  for (const r of result.rotated) {
    const c = new X509Certificate(r.current.certPem);
    console.log(`rotated ${r.name}: serial ${c.serialNumber.toLowerCase()}, valid until ${time(new Date(c.validTo))}`);
  }
  for (const s of result.skipped) console.error(`skipped ${s.name}: ${s.reason}`);
  if (!result.rotated.length) {
    console.error(`k1s certs rotate: nothing to rotate in ${tls}`);
    return 1;
  }
  for (const path of kubeconfigCandidates(t.dataDir, kubeconfigs)) {
    for (const r of result.rotated) {
      try {
        const users = await replaceKubeconfigCredentials(path, r.previous, r.current);
        if (users.length) console.log(`updated ${path} (user ${users.join(', ')}: new ${r.name} certificate)`);
      } catch (e) {
        console.error(`k1s certs rotate: could not update ${path}: ${(e as Error).message}`);
      }
    }
  }
  const server = result.rotated.find((r) => r.name === 'server');
  if (t.running?.url && server) {
    const want = new X509Certificate(server.current.certPem).raw;
    const end = Date.now() + 10_000;
    let served: Buffer | undefined;
    while (Date.now() < end && !(served = await servedCertificate(t.running.url))?.equals(want)) await new Promise((r) => setTimeout(r, 200));
    if (served?.equals(want)) console.log(`the running server (pid ${t.running.pid}) serves the new certificate`);
    else console.error(`warning: the running server (pid ${t.running.pid}) still serves the old certificate: send it SIGHUP or restart it`);
  } else if (!t.running) {
    console.log('a running server picks the new certificates up within seconds (SIGHUP: at once); a stopped one at its next start');
  }
  console.log('the old certificates stay valid until they expire (Kubernetes has no revocation): keep their keys safe or delete them');
  return 0;
}

export async function certsCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        'data-dir': { type: 'string' },
        kubeconfig: { type: 'string', multiple: true },
        output: { type: 'string', short: 'o' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    console.error(`k1s certs: ${(e as Error).message}\n\n${help}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(help);
    return 0;
  }
  const [sub, positionalName, ...extra] = positionals;
  if (sub !== 'check' && sub !== 'rotate') {
    console.error(`k1s certs: ${sub ? `unknown command "${sub}"` : 'name a command'} (check or rotate)\n\n${help}`);
    return 2;
  }
  if (extra.length || (positionalName && values.name && positionalName !== values.name)) {
    console.error(`k1s certs ${sub}: one cluster name at most, got ${[positionalName, values.name, ...extra].filter(Boolean).join(' ')}`);
    return 2;
  }
  const name = positionalName ?? values.name;
  const bad = name !== undefined ? invalidName(name) : undefined;
  if (bad) {
    console.error(`k1s certs ${sub}: ${bad}`);
    return 2;
  }
  if (name && values['data-dir']) {
    console.error(`k1s certs ${sub}: give a cluster name or --data-dir, not both`);
    return 2;
  }
  const output = values.output ?? 'text';
  if (!['text', 'json'].includes(output) || (values.output && sub !== 'check')) {
    console.error(`k1s certs ${sub}: -o takes text or json, with check only`);
    return 2;
  }
  if (values.kubeconfig && sub !== 'rotate') {
    console.error('k1s certs check: --kubeconfig is for rotate');
    return 2;
  }
  const t = dataDirTarget(values['data-dir'], name);
  return sub === 'check' ? check(t, output) : rotate(t, values.kubeconfig ?? []);
}
