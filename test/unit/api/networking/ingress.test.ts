import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatIngressHosts, ingressResource } from '../../../../src/api/networking/index.js';
import type { Ingress } from '../../../../src/api/networking/ingress/schema.js';
import { errors } from '../../../../src/machinery/errors.js';

const st = ingressResource.strategy;
const backend = { service: { name: 'web', port: { number: 80 } } };
const ing = (spec: Record<string, unknown>, extra: Partial<Ingress> = {}): Ingress => ({
  metadata: { name: 'web', namespace: 'default', ...(extra.metadata ?? {}) },
  spec,
  ...(extra.status ? { status: extra.status } : {}),
});
const rule = (path: Record<string, unknown>, host?: string) => ({ ...(host ? { host } : {}), http: { paths: [path] } });
const errs = (o: Ingress) => st.validate!(o).map(String);
const now = Date.parse('2024-01-01T01:00:00Z');
const cells = (o: Ingress) => {
  o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
  return ingressResource.columns.map((c) => c.cell(o, { now }));
};

describe('Ingress definition', () => {
  it('is namespaced networking.k8s.io/v1 with short name ing, status and generation', () => {
    assert.equal(ingressResource.group, 'networking.k8s.io');
    assert.deepEqual(ingressResource.shortNames, ['ing']);
    assert.equal(ingressResource.namespaced, true);
    assert.equal(ingressResource.hasGeneration, true);
    assert.deepEqual(ingressResource.subresources, { status: true });
    assert.equal(ingressResource.categories, undefined);
  });
});

describe('Ingress defaults', () => {
  it('writes the Go structs (status.loadBalancer, backend port) and drops empty lists; pathType has no default', () => {
    const o = ing({ rules: [{ http: { paths: [{ path: '/', backend: { service: { name: 'a' } } }] } }], tls: [] });
    st.defaults!(o);
    assert.deepEqual(o.spec, { rules: [{ http: { paths: [{ path: '/', backend: { service: { name: 'a', port: {} } } }] } }] });
    assert.deepEqual(o.status, { loadBalancer: {} });
  });
  it('resets status on create', () => {
    const o = ing({ defaultBackend: backend }, { status: { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } } });
    st.prepareForCreate!(o);
    assert.deepEqual(o.status, { loadBalancer: {} });
  });
});

describe('Ingress validation', () => {
  it('requires rules or a default backend, printing the Go slice', () => {
    assert.deepEqual(errs(ing({})), ['spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified']);
    assert.deepEqual(errs(ing({ defaultBackend: backend })), []);
  });

  it('requires pathType and checks paths per type', () => {
    assert.deepEqual(errs(ing({ rules: [rule({ path: '/', backend })] })), [
      'spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified',
    ]);
    assert.deepEqual(errs(ing({ rules: [rule({ path: 'a//b/..', pathType: 'Prefix', backend })] })), [
      'spec.rules[0].http.paths[0].path: Invalid value: "a//b/..": must be an absolute path',
      `spec.rules[0].http.paths[0].path: Invalid value: "a//b/..": must not contain '//'`,
      `spec.rules[0].http.paths[0].path: Invalid value: "a//b/..": cannot end with '/..'`,
    ]);
    assert.deepEqual(errs(ing({ rules: [rule({ path: '', pathType: 'Exact', backend })] })), [
      'spec.rules[0].http.paths[0].path: Invalid value: "": must be an absolute path',
    ]);
    assert.deepEqual(errs(ing({ rules: [rule({ path: 'rel', pathType: 'ImplementationSpecific', backend })] })), [
      'spec.rules[0].http.paths[0].path: Invalid value: "rel": must be an absolute path',
    ]);
    assert.deepEqual(errs(ing({ rules: [rule({ pathType: 'ImplementationSpecific', backend })] })), []);
    assert.deepEqual(errs(ing({ rules: [rule({ path: '/', pathType: 'Regex', backend })] })), [
      'spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"',
    ]);
    assert.deepEqual(errs(ing({ rules: [{ host: 'a.com', http: { paths: [] } }] })), ['spec.rules[0].http.paths: Required value']);
  });

  it('checks backends: service xor resource, service names, ports', () => {
    const p = (b: Record<string, unknown>) => ing({ rules: [rule({ path: '/', pathType: 'Prefix', backend: b })] });
    const at = 'spec.rules[0].http.paths[0].backend';
    assert.deepEqual(errs(p({})), [`${at}: Invalid value: "": resource or service backend is required`]);
    assert.deepEqual(errs(p({ ...backend, resource: { kind: 'Bucket', name: 'b' } })), [
      `${at}: Invalid value: "": cannot set both resource and service backends`,
    ]);
    assert.deepEqual(errs(p({ service: { name: '1web', port: {} } })), [
      `${at}.service.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      `${at}: Required value: port name or number is required`,
    ]);
    assert.deepEqual(errs(p({ service: { name: 'web', port: { name: 'http', number: 80 } } })), [
      `${at}: Invalid value: "": cannot set both port name & port number`,
    ]);
    assert.deepEqual(errs(p({ service: { name: 'web', port: { number: 70000 } } })), [
      `${at}.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive`,
    ]);
    assert.deepEqual(errs(p({ service: { port: { name: 'Http' } } })), [
      `${at}.service.name: Required value`,
      `${at}.service.port.name: Invalid value: "Http": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
    ]);
    assert.deepEqual(errs(p({ resource: { apiGroup: 'Ex.com', kind: '', name: 'a/b' } })), [
      `${at}.resource.apiGroup: Invalid value: "Ex.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      `${at}.resource.kind: Required value`,
      `${at}.resource.name: Invalid value: "a/b": may not contain '/'`,
    ]);
  });

  it('checks hosts, wildcards and TLS', () => {
    const p = { path: '/', pathType: 'Prefix', backend };
    assert.deepEqual(errs(ing({ rules: [rule(p, '10.0.0.1')] })), ['spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address']);
    assert.deepEqual(errs(ing({ rules: [rule(p, '*.example.com')] })), []);
    assert.deepEqual(errs(ing({ rules: [rule(p, 'a.*.com')] })), [
      `spec.rules[0].host: Invalid value: "a.*.com": a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    assert.deepEqual(errs(ing({ defaultBackend: backend, tls: [{ hosts: ['*.a.com', 'B.com'], secretName: 'Bad_Name' }] })), [
      `spec.tls[0].hosts[1]: Invalid value: "B.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      `spec.tls[0].secretName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
  });

  it('checks ingressClassName and, on create only, the legacy class annotation', () => {
    const o = ing({ defaultBackend: backend, ingressClassName: 'nginx' }, { metadata: { annotations: { 'kubernetes.io/ingress.class': 'traefik' } } });
    assert.equal(
      errors.invalid('Ingress', 'networking.k8s.io', 'web', st.validate!(o)).message,
      'Ingress.networking.k8s.io "web" is invalid: annotations.kubernetes.io/ingress.class: Invalid value: "traefik": must match `ingressClassName` when both are specified',
    );
    o.metadata.resourceVersion = '5'; // an update: ValidateIngressUpdate has no such check
    assert.deepEqual(st.validate!(o), []);
    assert.deepEqual(st.validateUpdate!(o, o), []);
    assert.deepEqual(errs(ing({ defaultBackend: backend, ingressClassName: 'Nginx' })), [
      `spec.ingressClassName: Invalid value: "Nginx": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
  });

  it('tolerates invalid secret names and wildcard rules already stored, on update', () => {
    const bad = ing({ rules: [{ host: '*.a.com', http: { paths: [{ path: 'x', backend }] } }], tls: [{ secretName: 'Bad' }] });
    bad.metadata.resourceVersion = '3';
    assert.deepEqual(st.validateUpdate!(bad, bad), []);
    const good = ing({ defaultBackend: backend });
    assert.equal(st.validateUpdate!(bad, good).length, 2);
  });

  it('validates status IPs and hostnames on status updates', () => {
    const o = ing({ defaultBackend: backend }, { status: { loadBalancer: { ingress: [{ ip: '010.1.2.3' }, { ip: 'x' }, { hostname: '1.2.3.4' }] } } });
    assert.deepEqual(st.validateStatusUpdate!(o, o).map(String), [
      'status.loadBalancer.ingress[1].ip: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'status.loadBalancer.ingress[2].hostname: Invalid value: "1.2.3.4": must be a DNS name, not an IP address',
    ]);
  });

  it('warns about the deprecated class annotation on create when no class is set', () => {
    const o = ing({ defaultBackend: backend }, { metadata: { annotations: { 'kubernetes.io/ingress.class': 'nginx' } } });
    assert.deepEqual(st.warnings!(o), [`annotation "kubernetes.io/ingress.class" is deprecated, please use 'spec.ingressClassName' instead`]);
    assert.deepEqual(st.warnings!(o, o), []);
    assert.deepEqual(st.warnings!({ ...o, spec: { ...o.spec, ingressClassName: 'nginx' } }), []);
  });
});

describe('Ingress table', () => {
  it('prints NAME CLASS HOSTS ADDRESS PORTS AGE', () => {
    assert.deepEqual(ingressResource.columns.map((c) => c.name), ['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age']);
    assert.deepEqual(cells(ing({ defaultBackend: backend })), ['web', '<none>', '*', '', '80', '60m']);
    const o = ing(
      { ingressClassName: 'nginx', rules: [{ host: 'a.com' }, {}, { host: 'b.com' }], tls: [{ hosts: ['a.com'] }] },
      { status: { loadBalancer: { ingress: [{ ip: '10.0.0.2' }, { hostname: 'lb.example.com' }, { ip: '10.0.0.10', hostname: 'x' }, { ip: '10.0.0.2' }] } } },
    );
    assert.deepEqual(cells(o), ['web', 'nginx', 'a.com,b.com', '10.0.0.10,10.0.0.2,lb.example.com', '80, 443', '60m']);
  });
  it('summarises more than three hosts the way kube does (counting rules)', () => {
    assert.equal(formatIngressHosts([{ host: 'a' }, { host: 'b' }, {}, { host: 'c' }, { host: 'd' }]), 'a,b,c + 2 more...');
    assert.equal(formatIngressHosts([{ host: 'a' }, { host: 'b' }, { host: 'c' }]), 'a,b,c');
  });
});
