// Custom resources served from CRDs, driven by real kubectl (1.33 and 1.27) and @kubernetes/client-node's
// CustomObjectsApi against one shared k1s server.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { kubectl, kubectlVersions, removeDir, startServer, until, type K1sServer } from './harness.js';

let server: K1sServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  const code = await server.stop();
  assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
  removeDir(server.dataDir);
});

/** A CRD named after the kubectl version, so each version's suite has its own group. */
function widgetCRD(group: string): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.${group}
spec:
  group: ${group}
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
    categories: [all]
  versions:
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
    additionalPrinterColumns:
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Color
      type: string
      jsonPath: .spec.color
      priority: 1
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    selectableFields:
    - jsonPath: .spec.color
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [color]
            properties:
              color:
                type: string
                enum: [red, green, blue]
              replicas:
                type: integer
                minimum: 0
                default: 1
              maxReplicas:
                type: integer
                default: 10
            x-kubernetes-validations:
            - rule: self.replicas <= self.maxReplicas
              message: replicas must not exceed maxReplicas
          status:
            type: object
            properties:
              replicas:
                type: integer
              selector:
                type: string
`;
}

for (const version of kubectlVersions) {
  describe(`custom resources with kubectl ${version}`, () => {
    const group = `k${version.replace('.', '')}.example.com`;
    const ns = `crd-${version.replace('.', '-')}`;
    let k: ReturnType<typeof kubectl>;
    const file = (name: string, content: string) => {
      const dir = join(server.dataDir, `crd-files-${version}`);
      mkdirSync(dir, { recursive: true });
      const p = join(dir, name);
      writeFileSync(p, content);
      return p;
    };
    const widget = (name: string, spec: string) =>
      `apiVersion: ${group}/v1\nkind: Widget\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n${spec}`;

    before(async () => {
      k = kubectl(server, version);
      await k.ok(['create', 'namespace', ns]);
      await k.ok(['apply', '-f', file('crd.yaml', widgetCRD(group))]);
      await k.ok(['wait', '--for=condition=Established', `crd/widgets.${group}`, '--timeout=20s']);
    });

    it('is established with its names accepted and discovered', async () => {
      const crd = JSON.parse(await k.ok(['get', 'crd', `widgets.${group}`, '-o', 'json']));
      const conds = Object.fromEntries(crd.status.conditions.map((c: { type: string; status: string; reason: string }) => [c.type, `${c.status}/${c.reason}`]));
      assert.equal(conds.NamesAccepted, 'True/NoConflicts');
      assert.equal(conds.Established, 'True/InitialNamesAccepted');
      assert.deepEqual(crd.status.storedVersions, ['v1']);
      const resources = await k.ok(['api-resources', `--api-group=${group}`, '--no-headers']);
      assert.match(resources, new RegExp(`^widgets\\s+wd\\s+${group.replace(/\./g, '\\.')}/v1\\s+true\\s+Widget`, 'm'));
      const versions = await k.ok(['api-versions']);
      assert.match(versions, new RegExp(`^${group.replace(/\./g, '\\.')}/v1$`, 'm'));
      assert.match(versions, new RegExp(`^${group.replace(/\./g, '\\.')}/v1beta1$`, 'm'));
    });

    it('creates, defaults, prunes, lists with printer columns and selects by selectable fields', async () => {
      const w1file = file('w1.yaml', widget('w1', '  color: red\n  replicas: 2\n  bogus: 1\n'));
      // kubectl validates strictly by default: the server refuses unknown fields, with --validate=warn it prunes them
      const strict = await k.run(['apply', '-f', w1file]);
      assert.notEqual(strict.code, 0);
      assert.match(strict.stderr, /Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec\.bogus"/);
      const out = await k.run(['apply', '--validate=warn', '-f', w1file]);
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stderr, /Warning: unknown field "spec\.bogus"/);
      const w1 = JSON.parse(await k.ok(['get', 'widget', 'w1', '-n', ns, '-o', 'json']));
      assert.deepEqual(w1.spec, { color: 'red', replicas: 2, maxReplicas: 10 });
      assert.equal(w1.metadata.generation, 1);
      await k.ok(['create', '-f', file('w2.yaml', widget('w2', '  color: blue\n'))]);
      const table = await k.ok(['get', 'wd', '-n', ns]);
      assert.match(table, /^NAME\s+REPLICAS\s+AGE$/m);
      assert.match(table, /^w2\s+1\s+\S+$/m);
      const wide = await k.ok(['get', 'widgets', '-n', ns, '-o', 'wide']);
      assert.match(wide, /^NAME\s+REPLICAS\s+COLOR\s+AGE$/m);
      assert.match(wide, /^w1\s+2\s+red\s+/m);
      const blue = await k.ok(['get', 'widgets', '-n', ns, '--field-selector', 'spec.color=blue', '-o', 'name']);
      assert.equal(blue.trim(), 'widget.' + group + '/w2');
      const all = await k.ok(['get', 'all', '-n', ns, '-o', 'name']);
      assert.match(all, new RegExp(`widget\\.${group.replace(/\./g, '\\.')}/w1`));
    });

    it('rejects invalid objects with Kubernetes messages and stores nothing', async () => {
      const bad = await k.run(['create', '-f', file('bad.yaml', widget('bad', '  color: pink\n  replicas: "x"\n'))]);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /"bad" is invalid/);
      assert.match(bad.stderr, /spec\.color: Unsupported value: "pink": supported values: "red", "green", "blue"/);
      assert.match(bad.stderr, /spec\.replicas: Invalid value: "string": spec\.replicas in body must be of type integer: "string"/);
      // the schema has CEL rules, which Kubernetes does not run over a value of the wrong type
      assert.match(bad.stderr, /<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation/);
      const cel = await k.run(['create', '-f', file('cel.yaml', widget('cel', '  color: red\n  replicas: 20\n'))]);
      assert.notEqual(cel.code, 0);
      assert.match(cel.stderr, /"cel" is invalid: spec: Invalid value: "object": replicas must not exceed maxReplicas/);
      const missing = await k.run(['get', 'widget', 'bad', 'cel', '-n', ns]);
      assert.match(missing.stderr, /NotFound|not found/);
      const smp = await k.run(['patch', 'widget', 'w1', '-n', ns, '--type=strategic', '-p', '{"spec":{"replicas":3}}']);
      assert.notEqual(smp.code, 0);
      assert.match(smp.stderr, /the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml/);
    });

    it('updates status through its subresource only, and scales', async () => {
      await k.ok(['patch', 'widget', 'w1', '-n', ns, '--type=merge', '-p', '{"status":{"replicas":5}}']);
      let w1 = JSON.parse(await k.ok(['get', 'widget', 'w1', '-n', ns, '-o', 'json']));
      assert.equal(w1.status, undefined, 'the main resource ignores status');
      await k.ok(['patch', 'widget', 'w1', '-n', ns, '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":2,"selector":"app=w1"}}']);
      w1 = JSON.parse(await k.ok(['get', 'widget', 'w1', '-n', ns, '-o', 'json']));
      assert.deepEqual(w1.status, { replicas: 2, selector: 'app=w1' });
      assert.equal(w1.metadata.generation, 1, 'a status change does not move generation');
      await k.ok(['scale', 'widget', 'w1', '-n', ns, '--replicas=4']);
      w1 = JSON.parse(await k.ok(['get', 'widget', 'w1', '-n', ns, '-o', 'json']));
      assert.equal(w1.spec.replicas, 4);
      assert.equal(w1.metadata.generation, 2);
    });

    it('serves the deprecated version with a warning, converting by apiVersion', async () => {
      const r = await k.run(['get', `widgets.v1beta1.${group}`, 'w1', '-n', ns, '-o', 'json']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).apiVersion, `${group}/v1beta1`);
      assert.match(r.stderr, new RegExp(`Warning: ${group.replace(/\./g, '\\.')}/v1beta1 Widget is deprecated`));
    });

    it('applies server-side and explains the schema', async () => {
      await k.ok(['apply', '--server-side', '--field-manager=e2e', '-f', file('w3.yaml', widget('w3', '  color: green\n  replicas: 3\n'))]);
      const w3 = JSON.parse(await k.ok(['get', 'widget', 'w3', '-n', ns, '-o', 'json', '--show-managed-fields']));
      assert.equal(w3.spec.replicas, 3);
      assert.ok(w3.metadata.managedFields.some((m: { manager: string }) => m.manager === 'e2e'));
      // client-side apply of a changed object: kubectl sends a merge patch, as OpenAPI offers no strategic one
      await k.ok(['apply', '-f', file('w4.yaml', widget('w4', '  color: green\n  replicas: 1\n'))]);
      await k.ok(['apply', '-f', file('w4.yaml', widget('w4', '  color: blue\n'))]);
      const w4 = JSON.parse(await k.ok(['get', 'widget', 'w4', '-n', ns, '-o', 'json']));
      assert.deepEqual(w4.spec, { color: 'blue', replicas: 1, maxReplicas: 10 }, 'replicas removed by the three-way patch, then defaulted');
      const explain = await k.ok(['explain', `widgets.${group}.spec`]);
      assert.match(explain, /color\s+<string>/);
    });

    it('deletes the objects with the CRD, and a re-created CRD starts empty', async () => {
      await k.ok(['delete', 'crd', `widgets.${group}`, '--timeout=30s']);
      await until(async () => (await k.run(['get', 'crd', `widgets.${group}`])).code !== 0, 'CRD deleted');
      await k.ok(['apply', '-f', file('crd.yaml', widgetCRD(group))]);
      await k.ok(['wait', '--for=condition=Established', `crd/widgets.${group}`, '--timeout=20s']);
      const left = await until(async () => {
        const r = await k.run(['get', 'widgets', '-n', ns, '-o', 'name']);
        return r.code === 0 ? { out: r.stdout } : undefined;
      }, 'widgets served again');
      assert.equal(left.out.trim(), '');
    });
  });
}

describe('custom resources with @kubernetes/client-node', () => {
  it('creates, lists, watches and patches through CustomObjectsApi; a controller reconciles /status', async () => {
    const k = kubectl(server, '1.33');
    const group = 'client.example.com';
    await k.ok(['apply', '-f', '-'], { input: widgetCRD(group) });
    await k.ok(['wait', '--for=condition=Established', `crd/widgets.${group}`, '--timeout=20s']);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    const ns = 'default';
    // the controller: an informer on widgets, writing status.replicas = spec.replicas
    const informer = k8s.makeInformer(kc, `/apis/${group}/v1/namespaces/${ns}/widgets`, () =>
      api.listNamespacedCustomObject({ group, version: 'v1', namespace: ns, plural: 'widgets' }) as never);
    const reconcile = async (o: { metadata: { name: string }; spec: { replicas: number }; status?: { replicas?: number } }) => {
      if (o.status?.replicas === o.spec.replicas) return;
      await api.patchNamespacedCustomObjectStatus(
        { group, version: 'v1', namespace: ns, plural: 'widgets', name: o.metadata.name, body: { status: { replicas: o.spec.replicas } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    };
    informer.on('add', (o) => void reconcile(o as never));
    informer.on('update', (o) => void reconcile(o as never));
    await informer.start();
    try {
      const created = (await api.createNamespacedCustomObject({
        group, version: 'v1', namespace: ns, plural: 'widgets',
        body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'c1' }, spec: { color: 'green', replicas: 3 } },
      })) as { metadata: { uid: string }; spec: Record<string, unknown> };
      assert.deepEqual(created.spec, { color: 'green', replicas: 3, maxReplicas: 10 });
      const reconciled = await until(async () => {
        const o = (await api.getNamespacedCustomObject({ group, version: 'v1', namespace: ns, plural: 'widgets', name: 'c1' })) as { status?: { replicas?: number } };
        return o.status?.replicas === 3 ? o : undefined;
      }, 'status reconciled', 20_000);
      assert.ok(reconciled);
      await api.patchNamespacedCustomObject(
        { group, version: 'v1', namespace: ns, plural: 'widgets', name: 'c1', body: [{ op: 'replace', path: '/spec/replicas', value: 5 }] },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
      );
      await until(async () => {
        const o = (await api.getNamespacedCustomObject({ group, version: 'v1', namespace: ns, plural: 'widgets', name: 'c1' })) as { status?: { replicas?: number } };
        return o.status?.replicas === 5;
      }, 'status follows spec', 20_000);
      const list = (await api.listNamespacedCustomObject({ group, version: 'v1', namespace: ns, plural: 'widgets' })) as { kind: string; items: unknown[] };
      assert.equal(list.kind, 'WidgetList');
      assert.equal(list.items.length, 1);
      await assert.rejects(
        api.createNamespacedCustomObject({ group, version: 'v1', namespace: ns, plural: 'widgets', body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'c2' }, spec: {} } }),
        (e: { code?: number; body?: string }) => e.code === 422 && /spec\.color: Required value/.test(String(e.body)),
      );
    } finally {
      await informer.stop();
    }
  });
});
