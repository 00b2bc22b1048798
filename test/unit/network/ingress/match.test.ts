import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Ingress } from '../../../../src/api/networking/ingress/schema.js';
import { buildRouteTable, hostMatches, matchRoute, requestHost, requestPath } from '../../../../src/network/ingress/match.js';

type P = [pathType: string, path: string, svc: string];
let seq = 0;
function ing(rules: { host?: string; paths: P[] }[], opts: { name?: string; created?: string; defaultSvc?: string } = {}): Ingress {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: opts.name ?? `i${seq++}`, namespace: 'default', creationTimestamp: opts.created ?? '2026-01-01T00:00:00Z' },
    spec: {
      ...(opts.defaultSvc ? { defaultBackend: { service: { name: opts.defaultSvc, port: { number: 80 } } } } : {}),
      rules: rules.map((r) => ({
        ...(r.host ? { host: r.host } : {}),
        http: { paths: r.paths.map(([pathType, path, svc]) => ({ pathType, path, backend: { service: { name: svc, port: { number: 80 } } } })) },
      })),
    },
  } as Ingress;
}
const route = (ingresses: Ingress[], path: string, host = 'x.test') => matchRoute(buildRouteTable(ingresses), host, path)?.backend.service?.name;

describe('ingress path matching (the table of the Ingress documentation)', () => {
  const cases: [paths: P[], req: string, want: string | undefined][] = [
    [[['Prefix', '/', 'a']], '/anything/at/all', 'a'],
    [[['Exact', '/foo', 'a']], '/foo', 'a'],
    [[['Exact', '/foo', 'a']], '/bar', undefined],
    [[['Exact', '/foo', 'a']], '/foo/', undefined],
    [[['Exact', '/foo/', 'a']], '/foo', undefined],
    [[['Prefix', '/foo', 'a']], '/foo', 'a'],
    [[['Prefix', '/foo', 'a']], '/foo/', 'a'],
    [[['Prefix', '/foo/', 'a']], '/foo', 'a'],
    [[['Prefix', '/foo/', 'a']], '/foo/', 'a'],
    [[['Prefix', '/aaa/bb', 'a']], '/aaa/bbb', undefined],
    [[['Prefix', '/aaa/bbb', 'a']], '/aaa/bbb', 'a'],
    [[['Prefix', '/aaa/bbb/', 'a']], '/aaa/bbb', 'a'],
    [[['Prefix', '/aaa/bbb', 'a']], '/aaa/bbb/', 'a'],
    [[['Prefix', '/aaa/bbb', 'a']], '/aaa/bbb/ccc', 'a'],
    [[['Prefix', '/aaa/bbb', 'a']], '/aaa/bbbxyz', undefined],
    [[['Prefix', '/', 'root'], ['Prefix', '/aaa', 'aaa']], '/aaa/ccc', 'aaa'],
    [[['Prefix', '/', 'root'], ['Prefix', '/aaa', 'aaa'], ['Prefix', '/aaa/bbb', 'bbb']], '/aaa/bbb', 'bbb'],
    [[['Prefix', '/', 'root'], ['Prefix', '/aaa', 'aaa'], ['Prefix', '/aaa/bbb', 'bbb']], '/ccc', 'root'],
    [[['Prefix', '/aaa', 'a']], '/ccc', undefined],
    [[['Prefix', '/foo', 'prefix'], ['Exact', '/foo', 'exact']], '/foo', 'exact'],
    [[['Exact', '/foo', 'exact'], ['Prefix', '/foo', 'prefix']], '/foo/x', 'prefix'],
    [[['ImplementationSpecific', '/foo', 'impl']], '/foo/bar', 'impl'],
    [[['ImplementationSpecific', '/foo', 'impl']], '/foobar', undefined],
    [[['Prefix', '/foo', 'a']], '/foo?x=/y', 'a'],
  ];
  for (const [paths, req, want] of cases) {
    it(`${paths.map(([t, p]) => `${t} ${p}`).join(' + ')}: ${req} → ${want ?? 'no match'}`, () => {
      assert.equal(route([ing([{ paths }])], requestPath(req)), want);
    });
  }

  it('merges rules of several Ingresses: longest path wins across them, the oldest Ingress wins a tie', () => {
    const older = ing([{ host: 'x.test', paths: [['Prefix', '/api', 'old']] }], { created: '2026-01-01T00:00:00Z' });
    const newer = ing([{ host: 'x.test', paths: [['Prefix', '/api', 'new'], ['Prefix', '/api/v2', 'v2']] }], { created: '2026-01-02T00:00:00Z' });
    assert.equal(route([newer, older], '/api/v1'), 'old');
    assert.equal(route([newer, older], '/api/v2/x'), 'v2');
  });
});

describe('ingress host matching', () => {
  it('matches wildcards on exactly one label', () => {
    assert.equal(hostMatches('*.foo.com', 'bar.foo.com'), true);
    assert.equal(hostMatches('*.foo.com', 'baz.bar.foo.com'), false);
    assert.equal(hostMatches('*.foo.com', 'foo.com'), false);
    assert.equal(hostMatches('foo.com', 'FOO.com'), true);
  });

  it('prefers the exact host, then the wildcard, then rules without host, then the default backend', () => {
    const all = [
      ing([{ host: 'a.foo.com', paths: [['Prefix', '/x', 'exact']] }]),
      ing([{ host: '*.foo.com', paths: [['Prefix', '/', 'wild']] }]),
      ing([{ paths: [['Prefix', '/any', 'nohost']] }], { defaultSvc: 'default' }),
    ];
    assert.equal(route(all, '/x', 'a.foo.com'), 'exact');
    assert.equal(route(all, '/y', 'a.foo.com'), 'wild');
    assert.equal(route(all, '/y', 'b.foo.com'), 'wild');
    assert.equal(route(all, '/any', 'a.b.foo.com'), 'nohost');
    assert.equal(route(all, '/y', 'a.b.foo.com'), 'default');
    assert.equal(route(all, '/y', 'foo.com'), 'default');
  });

  it('reads the Host header without port, and request targets without query', () => {
    assert.equal(requestHost('Example.COM:8080'), 'example.com');
    assert.equal(requestHost('[::1]:80'), '::1');
    assert.equal(requestHost('example.com.'), 'example.com');
    assert.equal(requestPath('/a/b?c=d#e'), '/a/b');
    assert.equal(requestPath('http://h.test/p?q'), '/p');
  });
});
