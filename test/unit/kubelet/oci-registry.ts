// A tiny Registry v2 server for tests: serves the one image of an OCI image-layout tarball on 127.0.0.1 over plain
// HTTP (containerd's CRI uses http for localhost registries), under any repository name and tag. It answers /v2/,
// manifests by tag or digest and blobs by digest (GET and HEAD), which is all a pull needs.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tar from 'tar';

export interface TestRegistry {
  /** host:port, e.g. 127.0.0.1:40123 */
  host: string;
  /** requests seen, as "METHOD path" */
  requests: string[];
  close(): Promise<void>;
}

export async function startTestRegistry(layoutTar: string): Promise<TestRegistry> {
  const dir = mkdtempSync(path.join(tmpdir(), 'k1s-test-registry-'));
  await tar.x({ file: layoutTar, cwd: dir });
  const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8')) as { manifests: { digest: string; mediaType: string }[] };
  const top = index.manifests[0];
  const blob = (digest: string) => {
    const m = /^sha256:([0-9a-f]{64})$/.exec(digest);
    if (!m) return undefined;
    try {
      return readFileSync(path.join(dir, 'blobs', 'sha256', m[1]));
    } catch {
      return undefined;
    }
  };
  const mediaTypeOf = (digest: string, body: Buffer): string => {
    if (digest === top.digest) return top.mediaType;
    try {
      return (JSON.parse(body.toString()) as { mediaType?: string }).mediaType ?? 'application/octet-stream';
    } catch {
      return 'application/octet-stream';
    }
  };
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = req.url ?? '';
    requests.push(`${req.method} ${url}`);
    res.setHeader('Docker-Distribution-API-Version', 'registry/2.0');
    if (url === '/v2/' || url === '/v2') return void res.end('{}');
    const m = /^\/v2\/(.+)\/(manifests|blobs)\/([^/?]+)$/.exec(url);
    if (!m) {
      res.statusCode = 404;
      return void res.end();
    }
    const digest = m[2] === 'manifests' && !m[3].startsWith('sha256:') ? top.digest : m[3];
    const body = blob(digest);
    if (!body) {
      res.statusCode = 404;
      res.setHeader('Content-Type', 'application/json');
      return void res.end(JSON.stringify({ errors: [{ code: m[2] === 'manifests' ? 'MANIFEST_UNKNOWN' : 'BLOB_UNKNOWN', message: 'unknown' }] }));
    }
    res.setHeader('Docker-Content-Digest', digest);
    res.setHeader('Content-Length', body.length);
    res.setHeader('Content-Type', m[2] === 'manifests' ? mediaTypeOf(digest, body) : 'application/octet-stream');
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    host: `127.0.0.1:${port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
