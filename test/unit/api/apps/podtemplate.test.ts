import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { podTemplateResource } from '../../../../src/api/core/workloads.js';
import type { KObject } from '../../../../src/api/types.js';
import { cluster, driver, meta, rejection, template, type Obj } from './helpers.js';

const d = driver(podTemplateResource);
const pt = (tpl: Obj = template(), m: Obj = {}): KObject => ({ apiVersion: 'v1', kind: 'PodTemplate', metadata: meta('tpl', m), template: tpl });

describe('PodTemplate', () => {
  it('has the kube names and the NAME CONTAINERS IMAGES POD LABELS columns', () => {
    assert.deepEqual([podTemplateResource.group, podTemplateResource.plural, podTemplateResource.shortNames, podTemplateResource.categories], ['', 'podtemplates', undefined, undefined]);
    assert.deepEqual(podTemplateResource.columns.map((c) => `${c.name}:${c.type}:${c.priority ?? 0}`), ['Name:string:0', 'Containers:string:0', 'Images:string:0', 'Pod Labels:string:0']);
    assert.equal(podTemplateResource.hasGeneration, true);
  });

  it('defaults the template, even an absent one', () => {
    const o = d.created(pt());
    const tpl = o.template as { metadata: Obj; spec: Obj };
    assert.deepEqual(tpl.metadata, { labels: { app: 'web' }, creationTimestamp: null });
    assert.equal(tpl.spec.restartPolicy, 'Always');
    assert.equal(tpl.spec.terminationGracePeriodSeconds, 30);
    const bare: KObject = { apiVersion: 'v1', kind: 'PodTemplate', metadata: meta('empty') };
    assert.equal((d.created(bare).template as { spec: Obj }).spec.dnsPolicy, 'ClusterFirst');
    assert.deepEqual(d.errors(bare), ['template.spec.containers: Required value']);
  });

  it('validates the template at template.*', () => {
    const tpl = { metadata: { labels: { app: 'x' }, annotations: { 'kubernetes.io/config.mirror': 'x' } }, spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'x' }], ephemeralContainers: [{ name: 'e', image: 'x' }] } };
    const errs = d.errors(pt(tpl));
    assert.deepEqual(errs.filter((e) => !e.startsWith('template.spec.ephemeralContainers[0]')), [
      'template.annotations[kubernetes.io/config.mirror]: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set',
      'template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template',
    ]);
  });

  it('prints containers, images and pod labels', () => {
    const o = d.created(pt(template({ tier: 'b', app: 'a' }, { containers: [{ name: 'a', image: 'x:1' }, { name: 'b', image: 'y:2' }] })));
    assert.deepEqual(d.cells(o), { Name: 'tpl', Containers: 'a,b', Images: 'x:1,y:2', 'Pod Labels': 'app=a,tier=b' });
  });
});

describe('PodTemplate through the API', () => {
  let c: Awaited<ReturnType<typeof cluster>>;
  before(async () => {
    c = await cluster();
  });
  after(() => c.close());
  const api = () => c.client.resource('v1', 'podtemplates');

  it('creates, bumps the generation on template changes and rejects bad templates', async () => {
    const o = await api().create('default', pt());
    assert.equal(o.metadata.generation, 1);
    const upd = await api().patch('default', 'tpl', 'strategic', { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.28' }] } } });
    assert.equal(upd.metadata.generation, 2);
    assert.equal(((upd.template as { spec: { containers: Obj[] } }).spec.containers[0]).image, 'nginx:1.28');
    const e = await rejection(api().create('default', pt(template({ app: 'web' }, { containers: [{ name: 'Bad_Name', image: 'x' }] }), { name: 'bad' })));
    assert.equal(e.code, 422);
    assert.match(e.message, /^PodTemplate "bad" is invalid: template\.spec\.containers\[0\]\.name: Invalid value: "Bad_Name"/);
  });
});
