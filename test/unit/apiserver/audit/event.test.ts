// The audit Event's JSON line: field order, omitted empties, sorted maps, microsecond times, Go's HTML escapes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditUser, eventLine, microTime, sourceIPs, withoutManagedFields, type AuditEvent } from '../../../../src/apiserver/audit/event.js';

const t0 = Date.UTC(2025, 4, 6, 7, 8, 9, 123) + 0.456;

describe('audit event line', () => {
  it('writes kube field order, omits empty fields and ends with a newline', () => {
    const ev: AuditEvent = {
      level: 'Metadata',
      auditID: 'a1',
      stage: 'ResponseComplete',
      requestURI: '/api/v1/namespaces/default/pods?limit=500&watch=false',
      verb: 'list',
      user: auditUser({ name: 'alice', groups: ['devs'], extra: { zeta: ['1'], alpha: ['2'] } }),
      sourceIPs: ['10.0.0.1'],
      userAgent: 'kubectl/v1.33.0 <test>',
      objectRef: { resource: 'pods', namespace: 'default', name: '', apiGroup: '', apiVersion: 'v1', subresource: '' },
      responseStatus: { code: 200 },
      requestReceivedTimestamp: t0,
      stageTimestamp: t0 + 1.5,
      annotations: { 'z.example.com/x': 'y', 'authorization.k8s.io/reason': '', 'authorization.k8s.io/decision': 'allow' },
    };
    assert.equal(
      eventLine(ev),
      '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"ResponseComplete",' +
        '"requestURI":"/api/v1/namespaces/default/pods?limit=500\\u0026watch=false","verb":"list",' +
        '"user":{"username":"alice","groups":["devs"],"extra":{"alpha":["2"],"zeta":["1"]}},"sourceIPs":["10.0.0.1"],' +
        '"userAgent":"kubectl/v1.33.0 \\u003ctest\\u003e","objectRef":{"resource":"pods","namespace":"default","apiVersion":"v1"},' +
        '"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2025-05-06T07:08:09.123456Z",' +
        '"stageTimestamp":"2025-05-06T07:08:09.124956Z",' +
        '"annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":"","z.example.com/x":"y"}}\n',
    );
  });

  it('carries a Status response and the objects in their places', () => {
    const line = eventLine({
      level: 'RequestResponse', auditID: 'b', stage: 'ResponseComplete', requestURI: '/api/v1/namespaces/x/configmaps', verb: 'create',
      user: {}, impersonatedUser: { username: 'bob' },
      responseStatus: { status: 'Failure', message: 'configmaps "c" already exists', reason: 'AlreadyExists', details: { name: 'c', kind: 'configmaps' }, code: 409 },
      requestObject: { kind: 'ConfigMap' }, responseObject: { kind: 'Status' },
      requestReceivedTimestamp: t0, stageTimestamp: t0,
    });
    const o = JSON.parse(line);
    assert.deepEqual(Object.keys(o), ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'impersonatedUser', 'responseStatus', 'requestObject', 'responseObject', 'requestReceivedTimestamp', 'stageTimestamp']);
    assert.deepEqual(o.user, {});
    assert.equal(JSON.stringify(o.responseStatus), '{"metadata":{},"status":"Failure","message":"configmaps \\"c\\" already exists","reason":"AlreadyExists","details":{"name":"c","kind":"configmaps"},"code":409}');
  });

  it('formats microsecond times in UTC', () => {
    assert.equal(microTime(Date.UTC(2024, 0, 2, 3, 4, 5, 6)), '2024-01-02T03:04:05.006000Z');
    assert.equal(microTime(Date.UTC(2024, 0, 2, 3, 4, 5, 999) + 0.999), '2024-01-02T03:04:05.999999Z');
  });

  it('lists source IPs as utilnet.SourceIPs does', () => {
    assert.deepEqual(sourceIPs({}, '::ffff:127.0.0.1'), ['127.0.0.1']);
    assert.deepEqual(sourceIPs({ 'x-forwarded-for': '1.2.3.4, bogus, 5.6.7.8', 'x-real-ip': '1.2.3.4' }, '10.0.0.9'), ['1.2.3.4', '5.6.7.8', '10.0.0.9']);
    assert.deepEqual(sourceIPs({ 'x-real-ip': '9.9.9.9' }, '::ffff:9.9.9.9'), ['9.9.9.9'], 'the peer is not repeated');
    assert.deepEqual(sourceIPs({}, '::1'), ['::1']);
  });

  it('drops managedFields from objects, list items and table rows without changing the input', () => {
    const mf = [{ manager: 'kubectl' }];
    const obj = { kind: 'ConfigMap', metadata: { name: 'a', managedFields: mf } };
    assert.deepEqual(withoutManagedFields(obj), { kind: 'ConfigMap', metadata: { name: 'a' } });
    assert.equal(obj.metadata.managedFields, mf);
    assert.deepEqual(withoutManagedFields({ kind: 'List', metadata: {}, items: [obj] }), { kind: 'List', metadata: {}, items: [{ kind: 'ConfigMap', metadata: { name: 'a' } }] });
    assert.deepEqual(withoutManagedFields({ kind: 'Table', rows: [{ cells: [], object: obj }] }), { kind: 'Table', rows: [{ cells: [], object: { kind: 'ConfigMap', metadata: { name: 'a' } } }] });
  });
});
