// /healthz, /livez and /readyz as kube-apiserver serves them: "ok", or a per-check report with ?verbose,
// individual checks at /readyz/<name>, and ?exclude=<name>.
import type { FastifyInstance } from 'fastify';

export type Check = () => Promise<void> | void;

export class HealthChecks {
  private readonly live: [string, Check][] = [];
  private readonly ready: [string, Check][] = [];

  addLive(name: string, check: Check): void {
    this.live.push([name, check]);
    this.ready.push([name, check]);
  }

  addReady(name: string, check: Check): void {
    this.ready.push([name, check]);
  }

  async isReady(): Promise<boolean> {
    return (await run(this.ready, new Set())).ok;
  }

  register(app: FastifyInstance): void {
    const endpoints: [string, () => [string, Check][]][] = [
      ['healthz', () => this.ready],
      ['livez', () => this.live],
      ['readyz', () => this.ready],
    ];
    for (const [ep, checks] of endpoints) {
      app.get(`/${ep}`, async (req, reply) => {
        const q = new URLSearchParams(req.url.split('?')[1] ?? '');
        const exclude = new Set(q.getAll('exclude'));
        const res = await run(checks(), exclude);
        const verbose = q.has('verbose');
        let body: string;
        if (verbose || !res.ok) {
          body = res.lines.join('\n') + '\n';
          body += res.ok ? `${ep} check passed\n` : `${ep} check failed\n`;
        } else body = 'ok';
        return reply
          .code(res.ok ? 200 : 500)
          .header('content-type', 'text/plain; charset=utf-8')
          .header('x-content-type-options', 'nosniff')
          .send(body);
      });
      app.get(`/${ep}/:check`, async (req, reply) => {
        const name = (req.params as { check: string }).check;
        const c = checks().find(([n]) => n === name);
        if (!c) return reply.code(404).header('content-type', 'text/plain; charset=utf-8').send('404 page not found\n');
        try {
          await c[1]();
          return reply.code(200).header('content-type', 'text/plain; charset=utf-8').send('ok');
        } catch (e) {
          return reply.code(500).header('content-type', 'text/plain; charset=utf-8').send(`internal server error: ${(e as Error).message}\n`);
        }
      });
    }
  }
}

async function run(checks: [string, Check][], exclude: Set<string>): Promise<{ ok: boolean; lines: string[] }> {
  const lines: string[] = [];
  let ok = true;
  for (const [name, check] of checks) {
    if (exclude.has(name)) {
      lines.push(`[+]${name} excluded: ok`);
      continue;
    }
    try {
      await check();
      lines.push(`[+]${name} ok`);
    } catch {
      ok = false;
      lines.push(`[-]${name} failed: reason withheld`);
    }
  }
  return { ok, lines };
}
