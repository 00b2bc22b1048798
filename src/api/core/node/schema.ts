// OpenAPI schema of core/v1 Node. Patch metadata and list types follow k8s.io/api/core/v1 types.go (1.33);
// descriptions are short summaries for `kubectl explain`.
import { s, type Definitions, type Schema } from '../../../machinery/schema.js';
import { CORE } from '../common.js';
import { kindHeader, listDefinition } from '../../meta.js';

const r = (name: string, description?: string, extra: Partial<Schema> = {}): Schema => s.ref(CORE + name, description, extra);
const item = (name: string): Schema => s.ref(CORE + name, undefined, { default: {} });
const req = (description: string): Schema => s.str(description, { default: '' });
const NODE_DOC = 'https://kubernetes.io/docs/reference/node/node-status/';

export const nodeDefinitions: Definitions = {
  [`${CORE}Node`]: s.obj(
    {
      ...kindHeader(),
      spec: r('NodeSpec', 'Configuration of the node: pod CIDRs, taints, whether new pods may be scheduled.', { default: {} }),
      status: r('NodeStatus', `Most recently observed status of the node, reported by its kubelet. More info: ${NODE_DOC}`, { default: {} }),
    },
    { description: 'Node is a worker machine of the cluster; each node runs a kubelet and hosts pods.' },
  ),
  [`${CORE}NodeSpec`]: s.obj(
    {
      podCIDR: s.str('The pod IP range of the node; the first entry of podCIDRs.'),
      podCIDRs: s.strSet('Pod IP ranges of the node, at most one per IP family. Can be set once and not changed.', { strategy: 'merge' }),
      providerID: s.str('ID of the node at its cloud provider (<ProviderName>://<ProviderSpecificNodeID>). Can be set once.'),
      unschedulable: s.bool('Marks the node unschedulable: no new pods are placed on it (kubectl cordon).'),
      taints: s.arr(item('Taint'), { description: 'Taints repel pods that do not tolerate them.' }),
      configSource: r('NodeConfigSource', 'Deprecated and unused: dynamic kubelet configuration was removed.'),
      externalID: s.str('Deprecated and unused.'),
    },
    { description: 'NodeSpec describes the attributes a node is created with.' },
  ),
  [`${CORE}Taint`]: s.obj(
    {
      key: req('Key of the taint.'),
      value: s.str('Value of the taint.'),
      effect: s.enumOf(['NoExecute', 'NoSchedule', 'PreferNoSchedule'], 'What happens to pods that do not tolerate the taint: NoSchedule, PreferNoSchedule or NoExecute.'),
      timeAdded: s.time('When the taint was added (NoExecute taints only).'),
    },
    { required: ['key', 'effect'], description: 'A taint on a node: pods not tolerating it are kept away, depending on its effect.' },
  ),
  [`${CORE}NodeConfigSource`]: s.obj(
    { configMap: r('ConfigMapNodeConfigSource', 'A ConfigMap holding node configuration.') },
    { description: 'Deprecated: a source of dynamic kubelet configuration.' },
  ),
  [`${CORE}ConfigMapNodeConfigSource`]: s.obj(
    {
      namespace: req('Namespace of the ConfigMap.'),
      name: req('Name of the ConfigMap.'),
      uid: s.str('UID of the ConfigMap; status only.'),
      resourceVersion: s.str('ResourceVersion of the ConfigMap; status only.'),
      kubeletConfigKey: req('Key of the ConfigMap holding the KubeletConfiguration.'),
    },
    { required: ['namespace', 'name', 'kubeletConfigKey'], description: 'Deprecated: a ConfigMap used as node configuration.' },
  ),
  [`${CORE}NodeStatus`]: s.obj(
    {
      capacity: s.map(s.quantity(), `Total resources of the node. More info: ${NODE_DOC}#capacity`),
      allocatable: s.map(s.quantity(), 'Resources available to pods. Defaults to capacity.'),
      phase: s.enumOf(['Pending', 'Running', 'Terminated'], 'Deprecated and never set.'),
      conditions: s.arr(item('NodeCondition'), { mergeKey: 'type', description: `Current conditions of the node, such as Ready. More info: ${NODE_DOC}#condition` }),
      addresses: s.arr(item('NodeAddress'), {
        mergeKey: 'type',
        description: `Addresses the node is reachable at. Its merge key is not unique: replace the list as a whole. More info: ${NODE_DOC}#addresses`,
      }),
      daemonEndpoints: r('NodeDaemonEndpoints', 'Endpoints of daemons running on the node.', { default: {} }),
      nodeInfo: r('NodeSystemInfo', `Versions and identifiers reported by the node. More info: ${NODE_DOC}#info`, { default: {} }),
      images: s.arr(item('ContainerImage'), { description: 'Container images present on the node.' }),
      volumesInUse: s.arr(s.str(undefined, { default: '' }), { description: 'Volumes attached to and mounted on the node.' }),
      volumesAttached: s.arr(item('AttachedVolume'), { description: 'Volumes attached to the node.' }),
      config: r('NodeConfigStatus', 'Deprecated: status of dynamic kubelet configuration.'),
      runtimeHandlers: s.arr(item('NodeRuntimeHandler'), { description: 'Runtime handlers available on the node.' }),
      features: r('NodeFeatures', 'Optional features the node implements.'),
    },
    { description: 'NodeStatus is information about the current status of a node.' },
  ),
  [`${CORE}NodeCondition`]: s.obj(
    {
      type: req('Type of the condition: Ready, MemoryPressure, DiskPressure, PIDPressure or NetworkUnavailable.'),
      status: req('Status of the condition: True, False or Unknown.'),
      lastHeartbeatTime: s.time('Last time the condition was reported.'),
      lastTransitionTime: s.time('Last time the status changed.'),
      reason: s.str('CamelCase reason for the last transition.'),
      message: s.str('Human-readable details of the last transition.'),
    },
    { required: ['type', 'status'], description: 'A condition of a node.' },
  ),
  [`${CORE}NodeAddress`]: s.obj(
    {
      type: req('Type of the address: Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS.'),
      address: req('The address.'),
    },
    { required: ['type', 'address'], description: 'An address of a node.' },
  ),
  [`${CORE}NodeDaemonEndpoints`]: s.obj(
    { kubeletEndpoint: r('DaemonEndpoint', 'Endpoint of the kubelet.', { default: {} }) },
    { description: 'Ports opened by daemons running on the node.' },
  ),
  [`${CORE}DaemonEndpoint`]: s.obj({ Port: s.int32('Port number.', { default: 0 }) }, { required: ['Port'], description: 'A port a daemon listens on.' }),
  [`${CORE}NodeSystemInfo`]: s.obj(
    {
      machineID: req('Machine ID (/etc/machine-id).'),
      systemUUID: req('System UUID reported by the hardware.'),
      bootID: req('ID of the current boot.'),
      kernelVersion: req("Kernel version ('uname -r')."),
      osImage: req('OS image, from /etc/os-release.'),
      containerRuntimeVersion: req('Container runtime and version, e.g. containerd://1.7.2.'),
      kubeletVersion: req('Version of the kubelet.'),
      kubeProxyVersion: req('Deprecated: version of kube-proxy, unreliable.'),
      operatingSystem: req('Operating system (GOOS) of the kubelet.'),
      architecture: req('CPU architecture (GOARCH) of the kubelet.'),
      swap: r('NodeSwapStatus', 'Swap memory of the node.'),
    },
    {
      required: ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture'],
      description: 'Identifiers and versions of the node software.',
    },
  ),
  [`${CORE}NodeSwapStatus`]: s.obj({ capacity: s.int64('Total swap memory in bytes.') }, { description: 'Swap memory of a node.' }),
  [`${CORE}NodeConfigStatus`]: s.obj(
    {
      assigned: r('NodeConfigSource', 'Configuration the node should use.'),
      active: r('NodeConfigSource', 'Configuration the node uses.'),
      lastKnownGood: r('NodeConfigSource', 'Configuration the node falls back to.'),
      error: s.str('Problem reconciling the configuration.'),
    },
    { description: 'Deprecated: status of dynamic kubelet configuration.' },
  ),
  [`${CORE}ContainerImage`]: s.obj(
    {
      names: s.arr(s.str(undefined, { default: '' }), { description: 'Names of the image, e.g. registry.k8s.io/pause:3.10.' }),
      sizeBytes: s.int64('Size of the image in bytes.'),
    },
    { description: 'A container image on a node.' },
  ),
  [`${CORE}AttachedVolume`]: s.obj(
    { name: req('Name of the attached volume.'), devicePath: req('Path where the volume should be available.') },
    { required: ['name', 'devicePath'], description: 'A volume attached to a node.' },
  ),
  [`${CORE}NodeRuntimeHandler`]: s.obj(
    { name: s.str('Runtime handler name; empty for the default one.', { default: '' }), features: r('NodeRuntimeHandlerFeatures', 'Features the handler supports.') },
    { description: 'A runtime handler of the node.' },
  ),
  [`${CORE}NodeRuntimeHandlerFeatures`]: s.obj(
    {
      recursiveReadOnlyMounts: s.bool('Whether recursive read-only mounts are supported.'),
      userNamespaces: s.bool('Whether user namespaces are supported.'),
    },
    { description: 'Features of a runtime handler.' },
  ),
  [`${CORE}NodeFeatures`]: s.obj(
    { supplementalGroupsPolicy: s.bool('Whether the node supports supplementalGroupsPolicy.') },
    { description: 'Optional features a node implements.' },
  ),
  [`${CORE}NodeList`]: listDefinition(`${CORE}Node`, 'NodeList is the whole list of all nodes.', 'List of nodes'),
};
