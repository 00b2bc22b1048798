import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { basic, createMessage, fieldErrors, pod } from './helpers.js';

const c = (extra: Record<string, unknown> = {}) => ({ name: 'c', image: 'nginx:1.27', ...extra });
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** Each case: the spec, and the one field error kube-apiserver reports. */
const single: [string, Record<string, unknown>, string][] = [
  ['no containers', { containers: [] }, 'spec.containers: Required value'],
  ['container name required', { containers: [{ image: 'x:1' }] }, 'spec.containers[0].name: Required value'],
  ['container name DNS label', { containers: [c({ name: 'Web_1' })] }, `spec.containers[0].name: Invalid value: "Web_1": ${LABEL_MSG}`],
  ['duplicate container', { containers: [c(), c()] }, 'spec.containers[1].name: Duplicate value: "c"'],
  ['image required', { containers: [{ name: 'c' }] }, 'spec.containers[0].image: Required value'],
  ['image whitespace', { containers: [c({ image: ' nginx' })] }, 'spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace'],
  ['port range', { containers: [c({ ports: [{ containerPort: 70000 }] })] }, 'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive'],
  ['port required', { containers: [c({ ports: [{ name: 'http' }] })] }, 'spec.containers[0].ports[0].containerPort: Required value'],
  ['port protocol', { containers: [c({ ports: [{ containerPort: 80, protocol: 'HTTP' }] })] },
    'spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"'],
  ['port name', { containers: [c({ ports: [{ containerPort: 80, name: 'web_port' }] })] },
    'spec.containers[0].ports[0].name: Invalid value: "web_port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'],
  ['duplicate port name', { containers: [c({ ports: [{ containerPort: 80, name: 'web' }, { containerPort: 81, name: 'web' }] })] },
    'spec.containers[0].ports[1].name: Duplicate value: "web"'],
  ['host port conflict', { containers: [c({ ports: [{ containerPort: 80, hostPort: 8080 }] }), c({ name: 'd', ports: [{ containerPort: 81, hostPort: 8080 }] })] },
    'spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"'],
  ['env name', { containers: [c({ env: [{ name: 'A=B', value: '1' }] })] },
    'spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than \'=\''],
  ['env value and valueFrom', { containers: [c({ env: [{ name: 'A', value: '1', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] })] },
    'spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty'],
  ['env fieldRef label', { containers: [c({ env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'spec.nodeSelector' } } }] })] },
    'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Invalid value: "spec.nodeSelector": error converting fieldPath: field label not supported: spec.nodeSelector'],
  ['env fieldRef not for env', { containers: [c({ env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.labels' } } }] })] },
    'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"'],
  ['env secret key', { containers: [c({ env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's' } } }] })] },
    'spec.containers[0].env[0].valueFrom.secretKeyRef.key: Required value'],
  ['volume mount not found', { containers: [c({ volumeMounts: [{ name: 'x', mountPath: '/x' }] })] }, 'spec.containers[0].volumeMounts[0].name: Not found: "x"'],
  ['mount path unique', { volumes: [{ name: 'v' }], containers: [c({ volumeMounts: [{ name: 'v', mountPath: '/x' }, { name: 'v', mountPath: '/x' }] })] },
    'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/x": must be unique'],
  ['volume name', { volumes: [{ name: 'My.Vol' }], containers: [c()] }, `spec.volumes[0].name: Invalid value: "My.Vol": ${LABEL_MSG}`],
  ['duplicate volume', { volumes: [{ name: 'v' }, { name: 'v' }], containers: [c()] }, 'spec.volumes[1].name: Duplicate value: "v"'],
  ['configMap name required', { volumes: [{ name: 'v', configMap: {} }], containers: [c()] }, 'spec.volumes[0].configMap.name: Required value'],
  ['secret defaultMode', { volumes: [{ name: 'v', secret: { secretName: 's', defaultMode: 512 } }], containers: [c()] },
    'spec.volumes[0].secret.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive'],
  ['hostPath type', { volumes: [{ name: 'v', hostPath: { path: '/x', type: 'Dir' } }], containers: [c()] },
    'spec.volumes[0].hostPath.type: Unsupported value: "Dir": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"'],
  ['restartPolicy', { restartPolicy: 'Sometimes', containers: [c()] }, 'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'],
  ['dnsPolicy', { dnsPolicy: 'Cluster', containers: [c()] },
    'spec.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"'],
  ['dnsPolicy None needs dnsConfig', { dnsPolicy: 'None', containers: [c()] }, 'spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None'],
  ['requests above limits', { containers: [c({ resources: { limits: { cpu: '1' }, requests: { cpu: '2' } } })] },
    'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'],
  ['extended resources need equal requests', { containers: [c({ resources: { limits: { 'example.com/gpu': '2' }, requests: { 'example.com/gpu': '1' } } })] },
    'spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2'],
  ['liveness needs a handler', { containers: [c({ livenessProbe: { periodSeconds: 5 } })] }, 'spec.containers[0].livenessProbe: Required value: must specify a handler type'],
  ['liveness successThreshold', { containers: [c({ livenessProbe: { exec: { command: ['true'] }, successThreshold: 2 } })] },
    'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1'],
  ['probe negative', { containers: [c({ readinessProbe: { tcpSocket: { port: 80 }, initialDelaySeconds: -1 } })] },
    'spec.containers[0].readinessProbe.initialDelaySeconds: Invalid value: -1: must be greater than or equal to 0'],
  ['probe port', { containers: [c({ livenessProbe: { httpGet: { port: 0 } } })] },
    'spec.containers[0].livenessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive'],
  ['two handlers', { containers: [c({ readinessProbe: { exec: { command: ['x'] }, tcpSocket: { port: 1 } } })] },
    'spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type'],
  ['sleep beyond grace period', { terminationGracePeriodSeconds: 10, containers: [c({ lifecycle: { preStop: { sleep: { seconds: 20 } } } })] },
    'spec.containers[0].lifecycle.preStop.sleep: Invalid value: 20: must be non-negative and less than terminationGracePeriodSeconds (10)'],
  ['init probe', { initContainers: [c({ name: 'i', livenessProbe: { exec: { command: ['x'] } } })], containers: [c()] },
    'spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always'],
  ['init name clash', { initContainers: [c()], containers: [c()] }, 'spec.initContainers[0].name: Duplicate value: "c"'],
  ['init restartPolicy', { initContainers: [c({ name: 'i', restartPolicy: 'OnFailure' })], containers: [c()] },
    'spec.initContainers[0].restartPolicy: Unsupported value: "OnFailure": supported values: "Always"'],
  ['container restartPolicy', { containers: [c({ restartPolicy: 'Always' })] }, 'spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers'],
  ['activeDeadlineSeconds', { activeDeadlineSeconds: 0, containers: [c()] }, 'spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive'],
  ['nodeName', { nodeName: 'Node_1', containers: [c()] }, `spec.nodeName: Invalid value: "Node_1": ${SUBDOMAIN_MSG}`],
  ['hostname', { hostname: 'a.b', containers: [c()] }, 'spec.hostname: Invalid value: "a.b": must not contain dots'],
  ['subdomain', { subdomain: 'Sub', containers: [c()] }, `spec.subdomain: Invalid value: "Sub": ${LABEL_MSG}`],
  ['toleration without key', { tolerations: [{ operator: 'Equal', value: 'x' }], containers: [c()] },
    'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"'],
  ['tolerationSeconds needs NoExecute', { tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 }], containers: [c()] },
    'spec.tolerations[0].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set'],
  ['toleration effect', { tolerations: [{ key: 'k', operator: 'Exists', effect: 'Never' }], containers: [c()] },
    'spec.tolerations[0].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'],
  ['pod runAsUser', { securityContext: { runAsUser: -1 }, containers: [c()] }, 'spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive'],
  ['seccomp localhost', { securityContext: { seccompProfile: { type: 'Localhost' } }, containers: [c()] },
    'spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost'],
  ['container procMount', { containers: [c({ securityContext: { procMount: 'Unmasked' } })] },
    'spec.containers[0].securityContext.procMount: Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked`'],
  ['topology maxSkew', { topologySpreadConstraints: [{ maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' }], containers: [c()] },
    'spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero'],
  ['affinity weight', { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: {} }] } }, containers: [c()] },
    'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100'],
  ['hostAliases ip', { hostAliases: [{ ip: '10.0.0', hostnames: ['a'] }], containers: [c()] },
    'spec.hostAliases[0].ip: Invalid value: "10.0.0": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
  ['ephemeral containers on create', { ephemeralContainers: [c({ name: 'debug' })], containers: [c()] }, 'spec.ephemeralContainers: Forbidden: cannot be set on create'],
  ['nodeName with scheduling gates', { nodeName: 'n1', schedulingGates: [{ name: 'g' }], containers: [c()] },
    'spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared'],
  ['hostNetwork hostPort', { hostNetwork: true, containers: [c({ ports: [{ containerPort: 80, hostPort: 81 }] })] },
    'spec.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` when `hostNetwork` is true'],
];

describe('pod create validation', () => {
  for (const [name, spec, want] of single) {
    it(name, () => assert.deepEqual(fieldErrors(pod(spec)), [want]));
  }

  it('a well-formed pod with most features is valid', () => {
    assert.deepEqual(fieldErrors(pod({
      initContainers: [c({ name: 'sidecar', restartPolicy: 'Always', readinessProbe: { exec: { command: ['true'] } } })],
      containers: [c({
        ports: [{ name: 'http', containerPort: 80 }, { containerPort: 80, protocol: 'UDP' }],
        env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }, { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } }],
        envFrom: [{ configMapRef: { name: 'cfg' } }],
        resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '250m' } },
        volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'cfg', mountPath: '/etc/cfg', readOnly: true }],
        livenessProbe: { httpGet: { port: 'http', path: '/healthz' } },
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true },
      })],
      volumes: [{ name: 'data', emptyDir: { sizeLimit: '1Gi' } }, { name: 'cfg', configMap: { name: 'cfg', items: [{ key: 'a', path: 'a.conf' }] } }],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
      affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } } } }] } },
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'web' } } }],
      dnsConfig: { options: [{ name: 'ndots', value: '2' }], searches: ['svc.cluster.local'] },
      securityContext: { runAsUser: 1000, fsGroup: 2000, seccompProfile: { type: 'RuntimeDefault' }, sysctls: [{ name: 'net.ipv4.ip_local_port_range', value: '1024 65535' }] },
      os: { name: 'linux' },
    })), []);
  });

  it('aggregates several errors into one 422 message', () => {
    assert.equal(
      createMessage(pod({ restartPolicy: 'Sometimes', containers: [{ name: 'c' }] })),
      'Pod "p" is invalid: [spec.containers[0].image: Required value, spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"]',
    );
    assert.equal(createMessage(basic()), '');
  });

  it('two volume sources: the second is forbidden and mounts of the volume are not found', () => {
    assert.deepEqual(fieldErrors(pod({ volumes: [{ name: 'v', emptyDir: {}, hostPath: { path: '/x' } }], containers: [c({ volumeMounts: [{ name: 'v', mountPath: '/v' }] })] })), [
      'spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type',
      'spec.containers[0].volumeMounts[0].name: Not found: "v"',
    ]);
  });

  it('resource quantities: negative values and unknown names', () => {
    const errs = fieldErrors(pod({ containers: [c({ resources: { limits: { memory: '-1', foo: '1' } } })] }));
    assert.ok(errs.includes('spec.containers[0].resources.limits[memory]: Invalid value: "-1": must be greater than or equal to 0'), errs.join('\n'));
    assert.ok(errs.includes('spec.containers[0].resources.limits[foo]: Invalid value: "foo": must be a standard resource type or fully qualified'));
    assert.ok(errs.includes('spec.containers[0].resources.limits[foo]: Invalid value: "foo": must be a standard resource for containers'));
  });

  it('an empty pod affinity topologyKey is required and, like Kubernetes, also fails the label-name check', () => {
    const p = 'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey';
    assert.deepEqual(fieldErrors(pod({ affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: {}, topologyKey: '' }] } }, containers: [c()] })), [
      `${p}: Required value: can not be empty`,
      `${p}: Invalid value: "": name part must be non-empty`,
      `${p}: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]);
  });

  it('pod annotations: mirror pods need a node, deletion cost is an int32', () => {
    assert.deepEqual(fieldErrors(pod({ containers: [c()] }, { annotations: { 'kubernetes.io/config.mirror': 'h' } })), [
      'metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "h": must set spec.nodeName if mirror pod annotation is set',
    ]);
    assert.deepEqual(fieldErrors(pod({ containers: [c()] }, { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '+10' } })), [
      'metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "+10": must be a 32bit integer',
    ]);
    assert.deepEqual(fieldErrors(pod({ containers: [c()] }, { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '-42' } })), []);
  });

  it('allowPrivilegeEscalation=false conflicts with privileged', () => {
    const errs = fieldErrors(pod({ containers: [c({ securityContext: { privileged: true, allowPrivilegeEscalation: false } })] }));
    assert.equal(errs.length, 1);
    assert.match(errs[0], /^spec\.containers\[0\]\.securityContext: Invalid value: .*: cannot set `allowPrivilegeEscalation` to false and `privileged` to true$/);
  });

  it('projected service account token paths and lifetimes', () => {
    const errs = fieldErrors(pod({
      containers: [c()],
      volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: '../t', expirationSeconds: 60 } }] } }],
    }));
    assert.deepEqual(errs, [
      'spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
      'spec.volumes[0].projected.path: Invalid value: "../t": must not contain \'..\'',
    ]);
  });
});
