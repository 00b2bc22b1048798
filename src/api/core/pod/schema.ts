// OpenAPI schema of core/v1 Pod, its spec and containers. Names, required fields and patch metadata follow the
// Go struct tags of k8s.io/api/core/v1 (1.33); descriptions are short summaries for `kubectl explain`.
// Volumes, scheduling/security types and status live in the sibling core-pod-schema-*.ts files.
import { s, type Definitions, type Schema } from '../../../machinery/schema.js';
import { coreCommonDefinitions } from '../common.js';
import { podSchedulingDefinitions } from './schema-scheduling.js';
import { podStatusDefinitions } from './schema-status.js';
import { podVolumeDefinitions } from './schema-volumes.js';
import { kindHeader, listDefinition } from '../../meta.js';

export const V1 = 'io.k8s.api.core.v1.';
const r = (name: string, description?: string): Schema => s.ref(V1 + name, description);

/** Fields shared by Container and EphemeralContainer (EphemeralContainerCommon in Go). */
function containerFields(ephemeral: boolean): Record<string, Schema> {
  const eph = (text: string) => (ephemeral ? `${text} Not allowed for ephemeral containers.` : text);
  return {
    name: s.str('Name of the container, a DNS label unique within the pod. Cannot be updated.'),
    image: s.str('Container image reference. Required for pods; may be left to controllers in templates.'),
    command: s.arr(s.str(), { description: 'Entrypoint array, run without a shell. Replaces the image ENTRYPOINT; $(VAR) references are expanded.' }),
    args: s.arr(s.str(), { description: 'Arguments to the entrypoint. Replace the image CMD; $(VAR) references are expanded.' }),
    workingDir: s.str("Working directory of the container; defaults to the image's."),
    ports: s.arr(r('ContainerPort'), {
      mergeKey: 'containerPort',
      mapKeys: ['containerPort', 'protocol'],
      description: eph('Ports the container exposes. Informational: any port the process listens on is reachable.'),
    }),
    envFrom: s.arr(r('EnvFromSource'), { description: 'Sources (ConfigMaps or Secrets) whose keys become environment variables. Explicit env entries win.' }),
    env: s.arr(r('EnvVar'), { mergeKey: 'name', description: 'Environment variables to set in the container.' }),
    resources: r('ResourceRequirements', eph('Compute resources (requests and limits) of this container.')),
    resizePolicy: s.arr(r('ContainerResizePolicy'), { description: eph('How each resource may be resized in place.') }),
    restartPolicy: s.str(
      ephemeral
        ? 'Restart behaviour of an individual container; not allowed for ephemeral containers.'
        : 'Only for init containers: "Always" makes the init container a sidecar that keeps running next to the regular containers.',
    ),
    volumeMounts: s.arr(r('VolumeMount'), { mergeKey: 'mountPath', description: 'Pod volumes to mount into the filesystem of the container.' }),
    volumeDevices: s.arr(r('VolumeDevice'), { mergeKey: 'devicePath', description: 'Block devices the container uses.' }),
    livenessProbe: r('Probe', eph('Periodic check of container liveness; the container is restarted when it fails.')),
    readinessProbe: r('Probe', eph('Periodic check of readiness; failing containers are taken out of service endpoints.')),
    startupProbe: r('Probe', eph('Check that must succeed before the other probes run; the container is restarted when it fails.')),
    lifecycle: r('Lifecycle', eph('Actions the kubelet runs after start and before stop of the container.')),
    terminationMessagePath: s.str('File whose contents are written to the termination message. Defaults to /dev/termination-log.'),
    terminationMessagePolicy: s.enumOf(
      ['FallbackToLogsOnError', 'File'],
      'Where the termination message comes from: "File" (default) or "FallbackToLogsOnError" (the log tail when the file is empty and the container failed).',
    ),
    imagePullPolicy: s.enumOf(
      ['Always', 'IfNotPresent', 'Never'],
      'When to pull the image: Always, Never or IfNotPresent. Defaults to Always for the :latest tag (or no tag), IfNotPresent otherwise.',
    ),
    securityContext: r('SecurityContext', 'Security options the container runs with; they override the pod-level ones.'),
    stdin: s.bool('Whether to allocate a stdin buffer for the container.'),
    stdinOnce: s.bool('Whether stdin is closed after the first attach session.'),
    tty: s.bool('Whether to allocate a TTY (needs stdin).'),
  };
}

const podSpec = s.obj(
  {
    volumes: s.arr(r('Volume'), { mergeKey: 'name', strategy: 'merge,retainKeys', description: 'Volumes that containers of the pod can mount.' }),
    initContainers: s.arr(r('Container'), {
      mergeKey: 'name',
      description: 'Containers run in order, each to completion, before the regular containers start. Cannot be updated.',
    }),
    containers: s.arr(r('Container'), { mergeKey: 'name', description: 'Containers of the pod. At least one is required. Cannot be updated.' }),
    ephemeralContainers: s.arr(r('EphemeralContainer'), {
      mergeKey: 'name',
      description: 'Debugging containers added to a running pod through the ephemeralcontainers subresource.',
    }),
    restartPolicy: s.enumOf(['Always', 'Never', 'OnFailure'], 'Restart policy of all containers: Always (default), OnFailure or Never.'),
    terminationGracePeriodSeconds: s.int64('Seconds the pod gets to stop gracefully after a delete. Defaults to 30.'),
    activeDeadlineSeconds: s.int64('Seconds the pod may be active (from start) before the system fails it. Positive integer.'),
    dnsPolicy: s.enumOf(
      ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'],
      'How DNS is set up for the pod: ClusterFirst (default), ClusterFirstWithHostNet, Default or None.',
    ),
    nodeSelector: { ...s.strMap('Labels a node must carry for the pod to be scheduled onto it.'), mapType: 'atomic' },
    serviceAccountName: s.str('Name of the ServiceAccount the pod runs as.'),
    serviceAccount: s.str('Deprecated alias of serviceAccountName.'),
    automountServiceAccountToken: s.bool('Whether a service account token is mounted automatically.'),
    nodeName: s.str('Node the pod is bound to. Normally set by the scheduler; setting it bypasses scheduling.'),
    hostNetwork: s.bool("Use the node's network namespace. Defaults to false."),
    hostPID: s.bool("Use the node's PID namespace. Defaults to false."),
    hostIPC: s.bool("Use the node's IPC namespace. Defaults to false."),
    shareProcessNamespace: s.bool('Share one process namespace between all containers of the pod.'),
    securityContext: r('PodSecurityContext', 'Pod-level security attributes and common container settings.'),
    imagePullSecrets: s.arr(r('LocalObjectReference'), { mergeKey: 'name', description: 'Secrets in the namespace used to pull the images.' }),
    hostname: s.str("Hostname of the pod; defaults to the pod's name."),
    subdomain: s.str('If set, the pod gets the FQDN <hostname>.<subdomain>.<namespace>.svc.<cluster domain>.'),
    affinity: r('Affinity', 'Scheduling constraints relative to nodes and other pods.'),
    schedulerName: s.str('Scheduler that places the pod. Defaults to default-scheduler.'),
    tolerations: s.arr(r('Toleration'), { listType: 'atomic', description: 'Taints the pod tolerates.' }),
    hostAliases: s.arr(r('HostAlias'), { mergeKey: 'ip', description: "Extra entries for the pod's /etc/hosts." }),
    priorityClassName: s.str('Name of the PriorityClass that gives the pod its priority.'),
    priority: s.int32('Priority value, filled in from priorityClassName by admission. Higher means more important.'),
    dnsConfig: r('PodDNSConfig', 'DNS parameters merged with those chosen by dnsPolicy.'),
    readinessGates: s.arr(r('PodReadinessGate'), { listType: 'atomic', description: 'Extra conditions that must be True for the pod to be ready.' }),
    runtimeClassName: s.str('RuntimeClass used to run the pod; empty uses the default runtime handler.'),
    enableServiceLinks: s.bool('Whether information about services is injected as environment variables. Defaults to true.'),
    preemptionPolicy: s.enumOf(['Never', 'PreemptLowerPriority'], 'Whether the pod may preempt lower-priority pods. Defaults to PreemptLowerPriority.'),
    overhead: s.map(s.quantity(), 'Resource overhead of the pod sandbox, set from the RuntimeClass by admission.'),
    topologySpreadConstraints: s.arr(r('TopologySpreadConstraint'), {
      mergeKey: 'topologyKey',
      mapKeys: ['topologyKey', 'whenUnsatisfiable'],
      description: 'How the pods of a group spread across topology domains.',
    }),
    setHostnameAsFQDN: s.bool('Set the hostname of the pod to its fully qualified domain name.'),
    os: r('PodOS', 'Operating system the pod is meant for; enables OS-specific validation.'),
    hostUsers: s.bool('Use the host user namespace (true, default) or a new one (false).'),
    schedulingGates: s.arr(r('PodSchedulingGate'), { mergeKey: 'name', description: 'Gates that hold the pod back from scheduling while any remain. Only removal is allowed.' }),
    resourceClaims: s.arr(r('PodResourceClaim'), {
      mergeKey: 'name',
      strategy: 'merge,retainKeys',
      description: 'ResourceClaims (dynamic resource allocation) the pod uses. Immutable.',
    }),
    resources: r('ResourceRequirements', 'Pod-level resource requirements (alpha; needs the PodLevelResources feature gate).'),
  },
  { required: ['containers'], description: 'Specification of a pod: its containers, volumes and scheduling requirements.' },
);

const probeFields: Record<string, Schema> = {
  exec: r('ExecAction', 'Command run inside the container.'),
  httpGet: r('HTTPGetAction', 'HTTP GET request.'),
  tcpSocket: r('TCPSocketAction', 'TCP connection attempt.'),
  grpc: r('GRPCAction', 'gRPC health check.'),
  initialDelaySeconds: s.int32('Seconds after container start before probes begin.'),
  timeoutSeconds: s.int32('Seconds before a probe times out. Defaults to 1.'),
  periodSeconds: s.int32('Seconds between probes. Defaults to 10.'),
  successThreshold: s.int32('Consecutive successes needed after a failure. Defaults to 1; must be 1 for liveness and startup.'),
  failureThreshold: s.int32('Consecutive failures that count as failed. Defaults to 3.'),
  terminationGracePeriodSeconds: s.int64('Grace period used when this probe fails, overriding the pod value.'),
};

const localName = s.str('Name of the referent.', { default: '' });

export const podDefinitions: Definitions = {
  [V1 + 'Pod']: s.obj(
    {
      ...kindHeader(),
      spec: r('PodSpec', 'Desired behaviour of the pod.'),
      status: r('PodStatus', 'Most recently observed status of the pod. Read-only.'),
    },
    { description: 'A Pod is a group of containers that share storage and network and run together on a host.' },
  ),
  [V1 + 'PodList']: listDefinition(V1 + 'Pod', 'PodList is a list of Pods.', 'List of pods.'),
  [V1 + 'PodSpec']: podSpec,
  [V1 + 'Container']: s.obj(containerFields(false), { required: ['name'], description: 'A single application container in a pod.' }),
  [V1 + 'EphemeralContainer']: s.obj(
    {
      ...containerFields(true),
      targetContainerName: s.str('Container whose namespaces (IPC, PID...) this ephemeral container joins.'),
    },
    { required: ['name'], description: 'A temporary container added to a running pod for debugging. Not restarted.' },
  ),
  [V1 + 'ContainerPort']: s.obj(
    {
      name: s.str('IANA_SVC_NAME for the port, unique within the pod, that services can refer to.'),
      hostPort: s.int32('Port to expose on the host (1-65535). Most containers do not need this.'),
      containerPort: s.int32('Port number on the pod IP (1-65535).'),
      protocol: { ...s.enumOf(['SCTP', 'TCP', 'UDP'], 'Protocol: TCP (default), UDP or SCTP.'), default: 'TCP' },
      hostIP: s.str('Host IP to bind the external port to.'),
    },
    { required: ['containerPort'], description: 'A network port of a container.' },
  ),
  [V1 + 'EnvVar']: s.obj(
    {
      name: s.str('Name of the environment variable.'),
      value: s.str('Value; $(VAR) references to earlier variables are expanded. Defaults to "".'),
      valueFrom: r('EnvVarSource', 'Source of the value; cannot be used when value is set.'),
    },
    { required: ['name'], description: 'An environment variable of a container.' },
  ),
  [V1 + 'EnvVarSource']: s.obj(
    {
      fieldRef: r('ObjectFieldSelector', 'A field of the pod, such as metadata.name or status.podIP.'),
      resourceFieldRef: r('ResourceFieldSelector', 'A resource limit or request of a container.'),
      configMapKeyRef: r('ConfigMapKeySelector', 'A key of a ConfigMap.'),
      secretKeyRef: r('SecretKeySelector', 'A key of a Secret in the pod namespace.'),
    },
    { description: 'Where the value of an environment variable comes from.' },
  ),
  [V1 + 'ConfigMapKeySelector']: s.obj(
    { name: localName, key: s.str('The key to select.'), optional: s.bool('Whether the ConfigMap or key may be missing.') },
    { required: ['key'], mapType: 'atomic', description: 'Selects a key of a ConfigMap.' },
  ),
  [V1 + 'SecretKeySelector']: s.obj(
    { name: localName, key: s.str('The key of the secret to select.'), optional: s.bool('Whether the Secret or key may be missing.') },
    { required: ['key'], mapType: 'atomic', description: 'Selects a key of a Secret.' },
  ),
  [V1 + 'ObjectFieldSelector']: s.obj(
    {
      apiVersion: s.str('Version of the schema fieldPath is written in. Defaults to "v1".'),
      fieldPath: s.str('Path of the field to select.'),
    },
    { required: ['fieldPath'], mapType: 'atomic', description: 'Selects a field of the pod.' },
  ),
  [V1 + 'ResourceFieldSelector']: s.obj(
    {
      containerName: s.str('Container name; required for volumes, optional for environment variables.'),
      resource: s.str('Resource to select, such as limits.cpu or requests.memory.'),
      divisor: s.quantity('Output format of the value. Defaults to "1".'),
    },
    { required: ['resource'], mapType: 'atomic', description: 'Selects a container resource (limit or request) and its output format.' },
  ),
  [V1 + 'EnvFromSource']: s.obj(
    {
      prefix: s.str('Prefix added to each key.'),
      configMapRef: r('ConfigMapEnvSource', 'The ConfigMap to read.'),
      secretRef: r('SecretEnvSource', 'The Secret to read.'),
    },
    { description: 'A source of a set of environment variables (ConfigMap or Secret).' },
  ),
  [V1 + 'ConfigMapEnvSource']: s.obj(
    { name: localName, optional: s.bool('Whether the ConfigMap may be missing.') },
    { description: 'Turns the keys of a ConfigMap into environment variables.' },
  ),
  [V1 + 'SecretEnvSource']: s.obj(
    { name: localName, optional: s.bool('Whether the Secret may be missing.') },
    { description: 'Turns the keys of a Secret into environment variables.' },
  ),
  [V1 + 'ResourceRequirements']: s.obj(
    {
      limits: s.map(s.quantity(), 'Maximum amount of compute resources allowed.'),
      requests: s.map(s.quantity(), 'Minimum amount of compute resources required. Defaults to limits when omitted.'),
      claims: s.arr(r('ResourceClaim'), { listType: 'map', mapKeys: ['name'], description: 'Names of pod resourceClaims this container uses.' }),
    },
    { description: 'Compute resource requirements.' },
  ),
  [V1 + 'ResourceClaim']: s.obj(
    {
      name: s.str('Name of an entry of pod.spec.resourceClaims.'),
      request: s.str('Name of one request of the claim; empty makes the whole claim available.'),
    },
    { required: ['name'], description: 'Reference to one entry of PodSpec.resourceClaims.' },
  ),
  [V1 + 'VolumeMount']: s.obj(
    {
      name: s.str('Name of a pod volume.'),
      readOnly: s.bool('Mount read-only when true. Defaults to false.'),
      recursiveReadOnly: s.str('Whether a read-only mount is also read-only recursively: Disabled, IfPossible or Enabled.'),
      mountPath: s.str("Path inside the container to mount at; must not contain ':'."),
      subPath: s.str('Path inside the volume to mount instead of its root.'),
      mountPropagation: s.enumOf(['Bidirectional', 'HostToContainer', 'None'], 'How mounts propagate between host and container. Defaults to None.'),
      subPathExpr: s.str('Like subPath, with $(VAR) references expanded from the container environment.'),
    },
    { required: ['name', 'mountPath'], description: 'Mounting of a volume into a container.' },
  ),
  [V1 + 'VolumeDevice']: s.obj(
    {
      name: s.str('Name of a persistentVolumeClaim of the pod.'),
      devicePath: s.str('Path inside the container the device is mapped to.'),
    },
    { required: ['name', 'devicePath'], description: 'Mapping of a raw block device into a container.' },
  ),
  [V1 + 'ContainerResizePolicy']: s.obj(
    {
      resourceName: s.str('Resource this policy applies to (cpu or memory).'),
      restartPolicy: s.str('What happens on resize: NotRequired (default) or RestartContainer.'),
    },
    { required: ['resourceName', 'restartPolicy'], description: 'Resize policy for one container resource.' },
  ),
  [V1 + 'Probe']: s.obj(probeFields, { description: 'A health check run against a container to decide whether it is alive or ready.' }),
  [V1 + 'ExecAction']: s.obj(
    { command: s.arr(s.str(), { description: 'Command line run inside the container, without a shell. Exit status 0 means healthy.' }) },
    { description: 'Runs a command in the container.' },
  ),
  [V1 + 'HTTPGetAction']: s.obj(
    {
      path: s.str('Path to request.'),
      port: s.intOrString('Port number or name to connect to.'),
      host: s.str('Host to connect to; defaults to the pod IP. Set "Host" in httpHeaders instead, usually.'),
      scheme: s.enumOf(['HTTP', 'HTTPS'], 'Scheme to use. Defaults to HTTP.'),
      httpHeaders: s.arr(r('HTTPHeader'), { description: 'Custom headers to send; repeated headers are allowed.' }),
    },
    { required: ['port'], description: 'An HTTP GET request.' },
  ),
  [V1 + 'HTTPHeader']: s.obj(
    { name: s.str('Header field name (canonicalised on output).'), value: s.str('Header field value.') },
    { required: ['name', 'value'], description: 'A custom HTTP header.' },
  ),
  [V1 + 'TCPSocketAction']: s.obj(
    { port: s.intOrString('Port number or name to connect to.'), host: s.str('Host to connect to; defaults to the pod IP.') },
    { required: ['port'], description: 'Opens a TCP connection.' },
  ),
  [V1 + 'GRPCAction']: s.obj(
    {
      port: s.int32('Port of the gRPC service (1-65535).'),
      service: s.str('Service name sent in the gRPC HealthCheckRequest; empty uses the gRPC default.', { default: '' }),
    },
    { required: ['port'], description: 'Calls the gRPC health checking protocol.' },
  ),
  [V1 + 'Lifecycle']: s.obj(
    {
      postStart: r('LifecycleHandler', 'Run right after the container is created; a failure restarts the container.'),
      preStop: r('LifecycleHandler', 'Run before the container is stopped for any reason other than a crash; counts against the grace period.'),
      stopSignal: s.str('Signal used to stop the container (alpha; needs ContainerStopSignals).'),
    },
    { description: 'Actions the kubelet runs around container start and stop.' },
  ),
  [V1 + 'LifecycleHandler']: s.obj(
    {
      exec: r('ExecAction', 'Command run inside the container.'),
      httpGet: r('HTTPGetAction', 'HTTP GET request.'),
      tcpSocket: r('TCPSocketAction', 'Deprecated; accepted for compatibility but not run.'),
      sleep: r('SleepAction', 'Pause for a number of seconds.'),
    },
    { description: 'An action of a lifecycle hook. Exactly one field must be set.' },
  ),
  [V1 + 'SleepAction']: s.obj({ seconds: s.int64('Seconds to sleep.') }, { required: ['seconds'], description: 'Sleeps for some seconds.' }),
  ...coreCommonDefinitions,
  ...podSchedulingDefinitions,
  ...podVolumeDefinitions,
  ...podStatusDefinitions,
};
