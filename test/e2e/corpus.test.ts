// Every built-in kind: a corpus of valid manifests applies with kubectl 1.33 and 1.27 and reads back with
// Kubernetes' defaults; invalid manifests are rejected with Kubernetes' field paths and messages.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl, kubectlVersions, removeDir, repoRoot, startServer, type K1sServer } from './harness.js';

let server: K1sServer;
before(async () => {
  // API behaviour only: stored objects stay as written (a kube-apiserver without controller manager or scheduler)
  server = await startServer({ extraArgs: ['--disable-controller-manager', '--disable-scheduler'] });
});
after(async () => {
  await server.stop();
  removeDir(server.dataDir);
});

const corpus = (file: string, ns: string, suffix: string) =>
  readFileSync(join(repoRoot, 'test', 'e2e', 'corpus', file), 'utf8').replaceAll('NAMESPACE', ns).replaceAll('SUFFIX', suffix);

interface Item {
  kind: string;
  metadata: { name: string };
  [k: string]: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Manifests Kubernetes rejects, with the line kubectl prints for a real cluster. */
const invalid: [string, string, RegExp][] = [
  ['pod without image', 'apiVersion: v1\nkind: Pod\nmetadata: {name: bad-pod}\nspec:\n  containers: [{name: c}]\n', /spec\.containers\[0\]\.image: Required value/],
  ['deployment selector not matching labels', 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: bad-deploy}\nspec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: b}}\n    spec: {containers: [{name: c, image: x}]}\n', /spec\.template\.metadata\.labels: Invalid value: map\[string\]string\{"app":"b"\}: `selector` does not match template `labels`/],
  ['service with a bad port', 'apiVersion: v1\nkind: Service\nmetadata: {name: bad-svc}\nspec:\n  ports: [{port: 70000}]\n', /spec\.ports\[0\]\.port: Invalid value: 70000: must be between 1 and 65535, inclusive/],
  ['job with restartPolicy Always', 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: bad-job}\nspec:\n  template:\n    spec: {restartPolicy: Always, containers: [{name: c, image: x}]}\n', /spec\.template\.spec\.restartPolicy: Required value: valid values: "OnFailure", "Never"|spec\.template\.spec\.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"/],
  ['configmap with a bad key', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad-cm}\ndata: {"a b": x}\n', /data\[a b\]: Invalid value: "a b": a valid config key must consist of alphanumeric characters/],
  ['tls secret without keys', 'apiVersion: v1\nkind: Secret\nmetadata: {name: bad-tls}\ntype: kubernetes.io/tls\ndata: {}\n', /data\[tls\.crt\]: Required value/],
  ['cronjob with a bad schedule', 'apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: bad-cron}\nspec:\n  schedule: "not a schedule"\n  jobTemplate:\n    spec:\n      template:\n        spec: {restartPolicy: Never, containers: [{name: c, image: x}]}\n', /spec\.schedule: Invalid value: "not a schedule"/],
  ['upper-case name', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad}\n', /metadata\.name: Invalid value: "Bad": a lowercase RFC 1123 subdomain/],
  ['role binding without roleRef name', 'apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: bad-rb}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ""}\n', /roleRef\.name: Required value/],
];

for (const version of kubectlVersions) {
  describe(`every kind with kubectl ${version}`, () => {
    const ns = `corpus-${version.replace('.', '-')}`;
    const suffix = `v${version.replace('.', '')}`;
    let k: ReturnType<typeof kubectl>;
    before(async () => {
      k = kubectl(server, version);
      await k.ok(['create', 'namespace', ns]);
      // no controller manager here: the ServiceAccount admission needs the default account made by hand
      await k.ok(['create', 'serviceaccount', 'default', '-n', ns]);
    });

    it('applies a valid manifest of every kind and reads back the defaults', async () => {
      await k.ok(['apply', '-n', ns, '-f', '-'], { input: corpus('valid.yaml', ns, suffix) });
      await k.ok(['apply', '-f', '-'], { input: corpus('valid-cluster.yaml', ns, suffix) });
      const list = JSON.parse(await k.ok(['get', '-n', ns, '-f', '-', '-o', 'json'], { input: corpus('valid.yaml', ns, suffix) }));
      const byKind = new Map<string, Item>((list.items as Item[]).map((i) => [`${i.kind}/${i.metadata.name}`, i]));
      const get = (key: string) => {
        const v = byKind.get(key);
        assert.ok(v, `${key} was not read back`);
        return v;
      };
      const deploy = get('Deployment/corpus-deploy');
      assert.equal(deploy.spec.replicas, 1);
      assert.deepEqual(deploy.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
      assert.equal(deploy.spec.revisionHistoryLimit, 10);
      assert.equal(deploy.spec.progressDeadlineSeconds, 600);
      assert.equal(deploy.spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent');
      assert.equal(deploy.spec.template.spec.restartPolicy, 'Always');
      const svc = get('Service/corpus-svc');
      assert.match(svc.spec.clusterIP, /^10\.43\.\d+\.\d+$/);
      assert.equal(svc.spec.sessionAffinity, 'None');
      assert.equal(svc.spec.ports[0].targetPort, 80);
      assert.equal(svc.spec.ports[0].protocol, 'TCP');
      assert.equal(svc.spec.internalTrafficPolicy, 'Cluster');
      const np = get('Service/corpus-nodeport');
      assert.ok(np.spec.ports[0].nodePort >= 30000 && np.spec.ports[0].nodePort <= 32767);
      const job = get('Job/corpus-job');
      assert.equal(job.spec.backoffLimit, 6);
      assert.equal(job.spec.completions, 1);
      assert.equal(job.spec.parallelism, 1);
      assert.equal(job.spec.completionMode, 'NonIndexed');
      assert.ok(job.spec.selector.matchLabels['batch.kubernetes.io/controller-uid']);
      const cron = get('CronJob/corpus-cron');
      assert.equal(cron.spec.concurrencyPolicy, 'Allow');
      assert.equal(cron.spec.successfulJobsHistoryLimit, 3);
      assert.equal(cron.spec.failedJobsHistoryLimit, 1);
      const sts = get('StatefulSet/corpus-sts');
      assert.equal(sts.spec.podManagementPolicy, 'OrderedReady');
      const pod = get('Pod/corpus-pod');
      assert.equal(pod.spec.containers[0].readinessProbe.periodSeconds, 10);
      assert.equal(pod.spec.containers[0].readinessProbe.timeoutSeconds, 1);
      assert.equal(pod.spec.containers[0].imagePullPolicy, 'Always');
      const secret = get('Secret/corpus-secret');
      assert.equal(Buffer.from(secret.data.password, 'base64').toString(), 's3cret');
      const hpaV1 = JSON.parse(await k.ok(['get', 'hpa.v2.autoscaling', 'corpus-hpa-v1', '-n', ns, '-o', 'json']));
      assert.equal(hpaV1.spec.metrics[0].resource.target.averageUtilization, 60);
      const cluster = JSON.parse(await k.ok(['get', '-f', '-', '-o', 'json'], { input: corpus('valid-cluster.yaml', ns, suffix) }));
      const pv = (cluster.items as Item[]).find((i) => i.kind === 'PersistentVolume')!;
      assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Retain');
      const sc = (cluster.items as Item[]).find((i) => i.kind === 'StorageClass')!;
      assert.equal(sc.reclaimPolicy, 'Delete');
      assert.equal(sc.volumeBindingMode, 'Immediate');
    });

    for (const [what, manifest, message] of invalid) {
      it(`rejects ${what}`, async () => {
        const r = await k.run(['apply', '-n', ns, '-f', '-'], { input: manifest });
        assert.notEqual(r.code, 0, `${what} was accepted`);
        assert.match(r.stderr, message);
      });
    }

    it('lists everything, explains, and answers auth questions', async () => {
      const all = await k.ok(['get', 'all', '-n', ns]);
      for (const r of ['pod/corpus-pod', 'service/corpus-svc', 'deployment.apps/corpus-deploy', 'replicaset.apps/corpus-rs', 'statefulset.apps/corpus-sts', 'daemonset.apps/corpus-ds', 'job.batch/corpus-job', 'cronjob.batch/corpus-cron', 'horizontalpodautoscaler.autoscaling/corpus-hpa', 'replicationcontroller/corpus-rc']) {
        assert.match(all, new RegExp(`^${r.replace('.', '\\.')}\\s`, 'm'), `${r} missing from get all`);
      }
      assert.match(await k.ok(['get', 'all', '-A']), /^NAMESPACE\s+NAME\s/m);
      assert.match(await k.ok(['get', 'deploy', '-n', ns]), /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\ncorpus-deploy\s+0\/1\s+0\s+0\s+\d+s$/m);
      assert.match(await k.ok(['get', 'svc', 'corpus-svc', '-n', ns]), /^corpus-svc\s+ClusterIP\s+10\.43\.\d+\.\d+\s+<none>\s+80\/TCP\s+\d+s$/m);
      const explain = await k.ok(['explain', 'deployment.spec.strategy.rollingUpdate']);
      assert.match(explain, /^KIND:\s+Deployment$/m);
      // kubectl prints a primitive ref (IntOrString is a string with format int-or-string) by its type
      assert.match(explain, /maxSurge\s+<string>/);
      assert.equal((await k.ok(['auth', 'can-i', 'create', 'pods'])).trim(), 'yes');
      if (version === '1.27') {
        // kubectl 1.27 only knows SelfSubjectReview v1alpha1/v1beta1, which a 1.33 cluster does not serve by default
        const old = await k.run(['auth', 'whoami']);
        assert.match(old.stderr, /the selfsubjectreviews API is not enabled in the cluster/);
      } else {
        const who = await k.ok(['auth', 'whoami']);
        assert.match(who, /Username\s+kubernetes-admin/);
        assert.match(who, /Groups\s+\[system:masters system:authenticated\]/);
      }
      const res = await k.ok(['api-resources']);
      for (const line of [
        /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m,
        /^horizontalpodautoscalers\s+hpa\s+autoscaling\/v2\s+true\s+HorizontalPodAutoscaler$/m,
        /^customresourcedefinitions\s+crd,crds\s+apiextensions\.k8s\.io\/v1\s+false\s+CustomResourceDefinition$/m,
        /^priorityclasses\s+pc\s+scheduling\.k8s\.io\/v1\s+false\s+PriorityClass$/m,
        /^selfsubjectaccessreviews\s+authorization\.k8s\.io\/v1\s+false\s+SelfSubjectAccessReview$/m,
      ]) {
        assert.match(res, line);
      }
      const pcs = await k.ok(['get', 'priorityclass', '-o', 'name']);
      assert.match(pcs, /priorityclass\.scheduling\.k8s\.io\/system-cluster-critical/);
      assert.match(pcs, /priorityclass\.scheduling\.k8s\.io\/system-node-critical/);
      assert.match(await k.ok(['get', 'svc', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.spec.clusterIP}']), /^10\.43\.0\.1$/);
    });
  });
}
