// OpenAPI schema of the pod's security and scheduling types: security contexts, affinity, tolerations, topology
// spread, DNS config and the small reference types. Shapes follow k8s.io/api/core/v1 (1.33).
import { s, type Definitions, type Schema } from '../../../machinery/schema.js';

const V1 = 'io.k8s.api.core.v1.';
const r = (name: string, description?: string): Schema => s.ref(V1 + name, description);
const labelSelector = (description: string): Schema => s.ref('io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector', description);
const strList = (description: string): Schema => s.arr(s.str(), { description });

const seLinux = r('SELinuxOptions', 'SELinux context to apply; the runtime picks a random one when unset.');
const windows = r('WindowsSecurityContextOptions', 'Windows-specific settings. Only for Windows pods.');
const runAsUser = s.int64('UID to run the entrypoint as. Defaults to the image user.');
const runAsGroup = s.int64('GID to run the entrypoint as. Defaults to the runtime default.');
const runAsNonRoot = s.bool('Refuse to start the container when it would run as UID 0.');
const seccomp = r('SeccompProfile', 'Seccomp profile to apply.');
const appArmor = r('AppArmorProfile', 'AppArmor profile to apply.');
const profileType = (values: string[], what: string): Schema =>
  s.enumOf(values, `Kind of ${what} profile: Localhost (a profile on the node), RuntimeDefault or Unconfined.`);

const podAffinityTerms = (what: string) => ({
  requiredDuringSchedulingIgnoredDuringExecution: s.arr(r('PodAffinityTerm'), {
    description: `Terms that must hold for the pod to be scheduled ${what}; not re-checked once the pod runs.`,
  }),
  preferredDuringSchedulingIgnoredDuringExecution: s.arr(r('WeightedPodAffinityTerm'), {
    description: `Weighted terms the scheduler prefers ${what}; nodes with the highest sum win.`,
  }),
});

export const podSchedulingDefinitions: Definitions = {
  [V1 + 'SecurityContext']: s.obj(
    {
      capabilities: r('Capabilities', 'Capabilities to add or drop. Defaults to the runtime defaults.'),
      privileged: s.bool('Run the container privileged (like root on the host). Defaults to false.'),
      seLinuxOptions: seLinux,
      windowsOptions: windows,
      runAsUser,
      runAsGroup,
      runAsNonRoot,
      readOnlyRootFilesystem: s.bool('Mount the root filesystem read-only. Defaults to false.'),
      allowPrivilegeEscalation: s.bool('Whether a process may gain more privileges than its parent (no_new_privs).'),
      procMount: s.enumOf(['Default', 'Unmasked'], 'Kind of /proc mount: Default or Unmasked.'),
      seccompProfile: seccomp,
      appArmorProfile: appArmor,
    },
    { description: 'Security settings of a container; they override the pod-level ones.' },
  ),
  [V1 + 'Capabilities']: s.obj(
    {
      add: strList('Capabilities to add.'),
      drop: strList('Capabilities to remove.'),
    },
    { description: 'POSIX capabilities to add to or drop from a container.' },
  ),
  [V1 + 'SELinuxOptions']: s.obj(
    {
      user: s.str('SELinux user label.'),
      role: s.str('SELinux role label.'),
      type: s.str('SELinux type label.'),
      level: s.str('SELinux level label.'),
    },
    { description: 'SELinux labels applied to a container.' },
  ),
  [V1 + 'SeccompProfile']: s.obj(
    {
      type: profileType(['Localhost', 'RuntimeDefault', 'Unconfined'], 'seccomp'),
      localhostProfile: s.str('Path of the profile on the node, relative to the kubelet seccomp directory. Only with type Localhost.'),
    },
    { required: ['type'], description: 'A seccomp profile. Exactly one source must be set.' },
  ),
  [V1 + 'AppArmorProfile']: s.obj(
    {
      type: profileType(['Localhost', 'RuntimeDefault', 'Unconfined'], 'AppArmor'),
      localhostProfile: s.str('Name of a profile loaded on the node. Only with type Localhost.'),
    },
    { required: ['type'], description: 'An AppArmor profile for a pod or container.' },
  ),
  [V1 + 'WindowsSecurityContextOptions']: s.obj(
    {
      gmsaCredentialSpecName: s.str('Name of the GMSACredentialSpec resource to use.'),
      gmsaCredentialSpec: s.str('Inlined GMSA credential spec contents.'),
      runAsUserName: s.str('Windows user name to run the entrypoint as.'),
      hostProcess: s.bool('Run as a Windows HostProcess container (needs hostNetwork).'),
    },
    { description: 'Windows-specific security options.' },
  ),
  [V1 + 'PodSecurityContext']: s.obj(
    {
      seLinuxOptions: seLinux,
      windowsOptions: windows,
      runAsUser,
      runAsGroup,
      runAsNonRoot,
      supplementalGroups: s.arr(s.int64(), { description: 'Extra groups added to the first process of each container.' }),
      supplementalGroupsPolicy: s.enumOf(['Merge', 'Strict'], 'How supplemental groups are computed: Merge (default) or Strict.'),
      fsGroup: s.int64('Group that owns supported volumes and is added to every container.'),
      sysctls: s.arr(r('Sysctl'), { description: 'Namespaced sysctls set for the pod.' }),
      fsGroupChangePolicy: s.enumOf(['Always', 'OnRootMismatch'], 'When volume ownership is changed: Always (default) or OnRootMismatch.'),
      seccompProfile: seccomp,
      appArmorProfile: appArmor,
      seLinuxChangePolicy: s.str('How the SELinux label is applied to volumes: Recursive or MountOption.'),
    },
    { description: 'Pod-level security attributes; container settings take precedence.' },
  ),
  [V1 + 'Sysctl']: s.obj(
    { name: s.str('Name of the sysctl.'), value: s.str('Value to set.') },
    { required: ['name', 'value'], description: 'A kernel parameter to set.' },
  ),
  [V1 + 'Affinity']: s.obj(
    {
      nodeAffinity: r('NodeAffinity', 'Node affinity rules.'),
      podAffinity: r('PodAffinity', 'Rules to co-locate the pod with other pods.'),
      podAntiAffinity: r('PodAntiAffinity', 'Rules to keep the pod away from other pods.'),
    },
    { description: 'Groups of affinity scheduling rules.' },
  ),
  [V1 + 'NodeAffinity']: s.obj(
    {
      requiredDuringSchedulingIgnoredDuringExecution: r('NodeSelector', 'Node requirements that must be met at scheduling time.'),
      preferredDuringSchedulingIgnoredDuringExecution: s.arr(r('PreferredSchedulingTerm'), {
        description: 'Weighted preferences; nodes with the highest sum of matching weights win.',
      }),
    },
    { description: 'Node affinity scheduling rules.' },
  ),
  [V1 + 'NodeSelector']: s.obj(
    { nodeSelectorTerms: s.arr(r('NodeSelectorTerm'), { description: 'ORed list of node selector terms.' }) },
    { required: ['nodeSelectorTerms'], mapType: 'atomic', description: 'Selects nodes: the union of the results of its terms.' },
  ),
  [V1 + 'NodeSelectorTerm']: s.obj(
    {
      matchExpressions: s.arr(r('NodeSelectorRequirement'), { description: 'Requirements on node labels.' }),
      matchFields: s.arr(r('NodeSelectorRequirement'), { description: 'Requirements on node fields.' }),
    },
    { mapType: 'atomic', description: 'ANDed node requirements. An empty term matches nothing.' },
  ),
  [V1 + 'NodeSelectorRequirement']: s.obj(
    {
      key: s.str('Label key the selector applies to.'),
      operator: s.enumOf(['DoesNotExist', 'Exists', 'Gt', 'In', 'Lt', 'NotIn'], 'Relation of the key to the values: In, NotIn, Exists, DoesNotExist, Gt or Lt.'),
      values: strList('Values; one integer for Gt/Lt, non-empty for In/NotIn, empty for Exists/DoesNotExist.'),
    },
    { required: ['key', 'operator'], description: 'A key, an operator and values that a node must satisfy.' },
  ),
  [V1 + 'PreferredSchedulingTerm']: s.obj(
    {
      weight: s.int32('Weight in the range 1-100.'),
      preference: r('NodeSelectorTerm', 'The node selector term.'),
    },
    { required: ['weight', 'preference'], description: 'A weighted node selector term.' },
  ),
  [V1 + 'PodAffinity']: s.obj(podAffinityTerms('near the matching pods'), { description: 'Inter-pod affinity rules.' }),
  [V1 + 'PodAntiAffinity']: s.obj(podAffinityTerms('away from the matching pods'), { description: 'Inter-pod anti-affinity rules.' }),
  [V1 + 'PodAffinityTerm']: s.obj(
    {
      labelSelector: labelSelector('Selects the pods this term refers to. Null matches no pods.'),
      namespaces: strList('Namespaces the selector applies to; with namespaceSelector, the union is used.'),
      topologyKey: s.str('Node label key that defines the co-location domain. Must not be empty.'),
      namespaceSelector: labelSelector('Selects the namespaces the term applies to; {} matches all namespaces.'),
      matchLabelKeys: strList('Pod label keys whose values from the incoming pod are added to labelSelector with In.'),
      mismatchLabelKeys: strList('Pod label keys whose values from the incoming pod are added to labelSelector with NotIn.'),
    },
    { required: ['topologyKey'], description: 'Pods (by label and namespace) that this pod should or should not run with in a topology domain.' },
  ),
  [V1 + 'WeightedPodAffinityTerm']: s.obj(
    {
      weight: s.int32('Weight in the range 1-100.'),
      podAffinityTerm: r('PodAffinityTerm', 'The pod affinity term.'),
    },
    { required: ['weight', 'podAffinityTerm'], description: 'A pod affinity term with a weight.' },
  ),
  [V1 + 'Toleration']: s.obj(
    {
      key: s.str('Taint key the toleration applies to; empty matches all keys (operator must be Exists).'),
      operator: s.enumOf(['Equal', 'Exists'], 'Exists or Equal (default). Exists is a wildcard for the value.'),
      value: s.str('Taint value to match; empty with Exists.'),
      effect: s.enumOf(['NoExecute', 'NoSchedule', 'PreferNoSchedule'], 'Taint effect to match; empty matches all effects.'),
      tolerationSeconds: s.int64('For NoExecute: how long the pod stays bound after the taint appears. Unset means forever.'),
    },
    { description: 'Lets a pod be scheduled on (or stay on) nodes with a matching taint.' },
  ),
  [V1 + 'TopologySpreadConstraint']: s.obj(
    {
      maxSkew: s.int32('Largest allowed difference of matching pods between two topology domains. Must be above zero.'),
      topologyKey: s.str('Node label key that defines the topology domains.'),
      whenUnsatisfiable: s.enumOf(['DoNotSchedule', 'ScheduleAnyway'], 'What to do when the constraint cannot be met: DoNotSchedule or ScheduleAnyway.'),
      labelSelector: labelSelector('Finds the pods that are counted in each domain.'),
      minDomains: s.int32('Minimum number of eligible domains (only with DoNotSchedule).'),
      nodeAffinityPolicy: s.enumOf(['Honor', 'Ignore'], 'Whether node affinity and nodeSelector are honoured when computing skew. Defaults to Honor.'),
      nodeTaintsPolicy: s.enumOf(['Honor', 'Ignore'], 'Whether node taints are honoured when computing skew. Defaults to Ignore.'),
      matchLabelKeys: strList('Pod label keys whose values from the incoming pod select the pods counted.'),
    },
    { required: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'], description: 'How matching pods spread across a topology.' },
  ),
  [V1 + 'HostAlias']: s.obj(
    { ip: s.str('IP address of the entry.'), hostnames: strList('Hostnames for the IP address.') },
    { required: ['ip'], description: "An extra /etc/hosts entry of the pod." },
  ),
  [V1 + 'PodDNSConfig']: s.obj(
    {
      nameservers: strList('DNS server IPs, added to those of dnsPolicy without duplicates.'),
      searches: strList('DNS search domains, added to those of dnsPolicy without duplicates.'),
      options: s.arr(r('PodDNSConfigOption'), { description: 'Resolver options; later entries override earlier ones with the same name.' }),
    },
    { description: 'DNS parameters of a pod on top of those from DNSPolicy.' },
  ),
  [V1 + 'PodDNSConfigOption']: s.obj(
    { name: s.str('Option name; required.'), value: s.str('Option value.') },
    { description: 'A resolver option.' },
  ),
  [V1 + 'PodReadinessGate']: s.obj(
    { conditionType: s.str('Type of a pod condition that must be True for readiness.') },
    { required: ['conditionType'], description: 'A pod condition readiness depends on.' },
  ),
  [V1 + 'PodOS']: s.obj({ name: s.str('Operating system: linux or windows.') }, { required: ['name'], description: 'The OS of a pod.' }),
  [V1 + 'PodResourceClaim']: s.obj(
    {
      name: s.str('Name of the claim inside the pod; a DNS label.'),
      resourceClaimName: s.str('Name of an existing ResourceClaim in the namespace.'),
      resourceClaimTemplateName: s.str('Name of a ResourceClaimTemplate from which a claim is made for this pod.'),
    },
    { required: ['name'], description: 'A ResourceClaim the pod needs. Exactly one source must be set.' },
  ),
  [V1 + 'PodSchedulingGate']: s.obj(
    { name: s.str('Name of the gate; unique among the gates of the pod.') },
    { required: ['name'], description: 'A gate that holds the pod back from scheduling.' },
  ),
};
