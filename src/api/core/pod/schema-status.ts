// OpenAPI schema of PodStatus and the container status types of k8s.io/api/core/v1 (1.33).
import { s, type Definitions, type Schema } from '../../../machinery/schema.js';

const V1 = 'io.k8s.api.core.v1.';
const r = (name: string, description?: string): Schema => s.ref(V1 + name, description);
const statuses = (what: string) => s.arr(r('ContainerStatus'), { description: `Statuses of the ${what}, one entry per container, as reported by the kubelet.` });

export const podStatusDefinitions: Definitions = {
  [V1 + 'PodStatus']: s.obj(
    {
      observedGeneration: s.int64('metadata.generation the status was computed for (alpha; PodObservedGenerationTracking).'),
      phase: s.enumOf(
        ['Failed', 'Pending', 'Running', 'Succeeded', 'Unknown'],
        'High-level summary of where the pod is in its lifecycle: Pending, Running, Succeeded, Failed or Unknown.',
      ),
      conditions: s.arr(r('PodCondition'), { mergeKey: 'type', description: 'Current service state of the pod.' }),
      message: s.str('Human-readable explanation of why the pod is in this state.'),
      reason: s.str("Brief CamelCase reason for the pod's state, such as 'Evicted'."),
      nominatedNodeName: s.str('Node the pod is expected to land on after its preemption victims leave. Not a guarantee.'),
      hostIP: s.str('IP of the node the pod is assigned to; empty until bound.'),
      hostIPs: s.arr(r('HostIP'), { mergeKey: 'ip', listType: 'atomic', description: 'IPs of the node; hostIPs[0] equals hostIP.' }),
      podIP: s.str('IP address of the pod; empty until allocated.'),
      podIPs: s.arr(r('PodIP'), { mergeKey: 'ip', description: 'IPs of the pod, at most one per IP family; podIPs[0] equals podIP.' }),
      startTime: s.time('When the kubelet acknowledged the pod, before any image was pulled.'),
      initContainerStatuses: statuses('init containers'),
      containerStatuses: statuses('regular containers'),
      qosClass: s.enumOf(['BestEffort', 'Burstable', 'Guaranteed'], 'Quality of Service class derived from the resource requirements. Immutable.'),
      ephemeralContainerStatuses: statuses('ephemeral containers'),
      resize: s.str('Deprecated: state of a pending in-place resize; see the PodResizePending and PodResizeInProgress conditions.'),
      resourceClaimStatuses: s.arr(r('PodResourceClaimStatus'), {
        mergeKey: 'name',
        strategy: 'merge,retainKeys',
        description: 'Names of the ResourceClaims generated for the pod.',
      }),
    },
    { description: 'Most recently observed status of a pod; may lag behind the actual state.' },
  ),
  [V1 + 'PodCondition']: s.obj(
    {
      type: s.str('Type of the condition, such as PodScheduled, Initialized, ContainersReady or Ready.'),
      observedGeneration: s.int64('metadata.generation the condition was set for (alpha).'),
      status: s.str('True, False or Unknown.'),
      lastProbeTime: s.time('When the condition was last probed.'),
      lastTransitionTime: s.time('When the condition last changed status.'),
      reason: s.str('CamelCase reason for the last transition.'),
      message: s.str('Human-readable details of the last transition.'),
    },
    { required: ['type', 'status'], description: 'A condition of a pod.' },
  ),
  [V1 + 'ContainerStatus']: s.obj(
    {
      name: s.str('Name of the container, as in the spec.'),
      state: r('ContainerState', 'Current state of the container.'),
      lastState: r('ContainerState', 'Last termination of the container, kept for debugging.'),
      ready: s.bool('Whether the container passes its readiness probe.'),
      restartCount: s.int32('Number of times the container was restarted.'),
      image: s.str('Image the container runs.'),
      imageID: s.str('ID of the image the container runs.'),
      containerID: s.str("Container ID in the format '<type>://<container_id>'."),
      started: s.bool('Whether the container finished its postStart hook and passed its startup probe.'),
      allocatedResources: s.map(s.quantity(), 'Resources the node allocated to the container.'),
      resources: r('ResourceRequirements', 'Resources actually configured for the running container.'),
      volumeMounts: s.arr(r('VolumeMountStatus'), { mergeKey: 'mountPath', description: 'Status of the volume mounts.' }),
      user: r('ContainerUser', 'Identity the first process of the container runs as.'),
      allocatedResourcesStatus: s.arr(r('ResourceStatus'), { mergeKey: 'name', description: 'Health of the resources allocated to the container.' }),
      stopSignal: s.str('Signal used to stop the container.'),
    },
    { required: ['name', 'ready', 'restartCount', 'image', 'imageID'], description: 'Status of one container of a pod.' },
  ),
  [V1 + 'ContainerState']: s.obj(
    {
      waiting: r('ContainerStateWaiting', 'Details of a waiting container.'),
      running: r('ContainerStateRunning', 'Details of a running container.'),
      terminated: r('ContainerStateTerminated', 'Details of a terminated container.'),
    },
    { description: 'State of a container; only one member is set. Defaults to waiting.' },
  ),
  [V1 + 'ContainerStateWaiting']: s.obj(
    { reason: s.str('Why the container is not running yet, such as ContainerCreating.'), message: s.str('Details of why the container is waiting.') },
    { description: 'A container that is waiting to run.' },
  ),
  [V1 + 'ContainerStateRunning']: s.obj({ startedAt: s.time('When the container last (re)started.') }, { description: 'A running container.' }),
  [V1 + 'ContainerStateTerminated']: s.obj(
    {
      exitCode: s.int32('Exit status of the last termination.'),
      signal: s.int32('Signal of the last termination.'),
      reason: s.str('Brief reason of the last termination.'),
      message: s.str('Details of the last termination.'),
      startedAt: s.time('When the previous execution started.'),
      finishedAt: s.time('When the container last terminated.'),
      containerID: s.str("Container ID in the format '<type>://<container_id>'."),
    },
    { required: ['exitCode'], description: 'A container that has terminated.' },
  ),
  [V1 + 'PodIP']: s.obj({ ip: s.str('An IP address of the pod.') }, { required: ['ip'], description: 'An IP address allocated to the pod.' }),
  [V1 + 'HostIP']: s.obj({ ip: s.str('An IP address of the host.') }, { required: ['ip'], description: 'An IP address of the node of the pod.' }),
  [V1 + 'ContainerUser']: s.obj({ linux: r('LinuxContainerUser', 'Linux identity.') }, { description: 'The identity a container process runs as.' }),
  [V1 + 'LinuxContainerUser']: s.obj(
    {
      uid: s.int64('UID of the first process.'),
      gid: s.int64('Primary GID of the first process.'),
      supplementalGroups: s.arr(s.int64(), { description: 'Supplemental groups of the first process.' }),
    },
    { required: ['uid', 'gid'], description: 'Linux user of the first process of a container.' },
  ),
  [V1 + 'ResourceStatus']: s.obj(
    {
      name: s.str('Resource name: a resource of the container spec or a claim name.'),
      resources: s.arr(r('ResourceHealth'), { listType: 'map', mapKeys: ['resourceID'], description: 'Health of each allocated unit.' }),
    },
    { required: ['name'], description: 'Health of one resource allocated to a container.' },
  ),
  [V1 + 'ResourceHealth']: s.obj(
    { resourceID: s.str('Unique ID of the allocated unit.'), health: s.str('Healthy, Unhealthy or Unknown.') },
    { required: ['resourceID'], description: 'Health of one allocated resource unit.' },
  ),
  [V1 + 'VolumeMountStatus']: s.obj(
    {
      name: s.str('Name of the volume mount.'),
      mountPath: s.str('Path of the mount.'),
      readOnly: s.bool('Whether the mount is read-only.'),
      recursiveReadOnly: s.str('Whether the read-only mount is recursive: Disabled or Enabled.'),
    },
    { required: ['name', 'mountPath'], description: 'Status of one volume mount of a container.' },
  ),
  [V1 + 'PodResourceClaimStatus']: s.obj(
    {
      name: s.str('Name of the entry in pod.spec.resourceClaims.'),
      resourceClaimName: s.str('Name of the ResourceClaim generated for it; unset when none was needed.'),
    },
    { required: ['name'], description: 'Maps a pod resource claim to the ResourceClaim generated for it.' },
  ),
};
