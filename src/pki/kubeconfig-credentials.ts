// Refreshing the client credentials embedded in kubeconfig files after a rotation: only the users whose
// client-certificate-data holds the replaced certificate are changed; every other entry and field is kept.
import { X509Certificate } from 'node:crypto';
import { YAML } from '../machinery/yaml.js';
import type { CertKeyPem } from './certs.js';
import { readIfExists } from './fsutil.js';
import { writeKubeconfig } from './kubeconfig.js';

type User = { name?: unknown; user?: Record<string, unknown> };

function sameCertificate(b64: unknown, pem: string): boolean {
  if (typeof b64 !== 'string') return false;
  try {
    return new X509Certificate(Buffer.from(b64, 'base64')).raw.equals(new X509Certificate(pem).raw);
  } catch {
    return false;
  }
}

/**
 * Replaces `previous` by `current` in the kubeconfig at `path`; the names of the users changed (none when the file
 * does not exist or does not hold `previous`, and then it is not written).
 */
export async function replaceKubeconfigCredentials(path: string, previous: CertKeyPem, current: CertKeyPem): Promise<string[]> {
  const text = await readIfExists(path);
  if (text === null) return [];
  let doc: { users?: User[] } | null;
  try {
    doc = YAML.parse(text) as { users?: User[] } | null;
  } catch {
    return []; // not ours to repair
  }
  const changed: string[] = [];
  for (const u of Array.isArray(doc?.users) ? doc.users : []) {
    if (!u?.user || !sameCertificate(u.user['client-certificate-data'], previous.certPem)) continue;
    u.user['client-certificate-data'] = Buffer.from(current.certPem).toString('base64');
    u.user['client-key-data'] = Buffer.from(current.keyPem).toString('base64');
    changed.push(String(u.name ?? ''));
  }
  if (changed.length) await writeKubeconfig(path, YAML.stringify(doc));
  return changed;
}
