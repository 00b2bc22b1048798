// core/v1 PodTemplateSpec, the pod template every workload embeds (Deployment, ReplicaSet, StatefulSet, DaemonSet,
// ReplicationController, PodTemplate, Job): its schema, the defaults decoding gives it and Go's encoding of it.
// A template gets SetDefaults_PodSpec and the generated container/volume defaulters like a pod, but not the
// Pod-only SetDefaults_Pod (enableServiceLinks, requests copied from limits, host-network ports: the
// DefaultHostNetworkHostPortsInPodTemplates gate is off since 1.28), and no status.
import { s, type Definitions } from '../../../machinery/schema.js';
import { dropDisabledPodFields } from '../pod/admission.js';
import { canonicalizePodQuantities, defaultContainer, defaultVolume, syncServiceAccountAlias } from '../pod/defaults.js';
import { normalizePodEncoding } from '../pod/encoding.js';
import { podDefinitions, V1 } from '../pod/schema.js';
import type { Container, Pod, PodSpec } from '../pod/types.js';
import { META } from '../../meta.js';
import type { ObjectMeta } from '../../types.js';

export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec?: PodSpec;
  [k: string]: unknown;
}

const CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';

/** PodTemplateSpec and everything a PodSpec refers to. */
export const podTemplateSpecDefinitions: Definitions = {
  ...podDefinitions,
  [V1 + 'PodTemplateSpec']: s.obj(
    {
      metadata: s.ref(META.ObjectMeta, `Metadata (labels, annotations) given to every pod created from this template. More info: ${CONVENTIONS}#metadata`, { default: {} }),
      spec: s.ref(V1 + 'PodSpec', `Desired behaviour of the pods created from this template. More info: ${CONVENTIONS}#spec-and-status`, { default: {} }),
    },
    { description: 'PodTemplateSpec is the metadata and spec a pod gets when it is created from a template.' },
  ),
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = <T>(v: T[] | undefined): T[] => (Array.isArray(v) ? v : []);

/** Go's encoding of an embedded ObjectMeta: omitempty fields dropped, creationTimestamp always written (null). */
export function normalizeEmbeddedMeta(meta: Obj): void {
  for (const [k, v] of Object.entries(meta)) {
    const empty = v === null || v === '' || v === 0 || (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0);
    if (empty && k !== 'creationTimestamp') delete meta[k];
  }
  if (meta.creationTimestamp === undefined || meta.creationTimestamp === '') meta.creationTimestamp = null;
}

/** The defaults of a decoded v1 PodTemplateSpec, plus the encoding Go would store it with. */
export function defaultPodTemplateSpec(tpl: PodTemplateSpec): void {
  if (!isObj(tpl.metadata)) tpl.metadata = {};
  if (!isObj(tpl.spec)) tpl.spec = {};
  const spec = tpl.spec;
  syncServiceAccountAlias(spec);
  if (!spec.dnsPolicy) spec.dnsPolicy = 'ClusterFirst';
  if (!spec.restartPolicy) spec.restartPolicy = 'Always';
  if (!isObj(spec.securityContext)) spec.securityContext = {};
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) spec.terminationGracePeriodSeconds = 30;
  if (!spec.schedulerName) spec.schedulerName = 'default-scheduler';
  for (const c of [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)]) defaultContainer(c, false);
  for (const v of list(spec.volumes)) defaultVolume(v);
  const asPod = { metadata: {}, spec } as Pod;
  canonicalizePodQuantities(asPod);
  normalizePodEncoding(asPod);
  normalizeEmbeddedMeta(tpl.metadata as Obj);
}

/** pod.DropDisabledTemplateFields: fields of features off by default in 1.33, unless the old template uses them. */
export function dropDisabledTemplateFields(tpl: PodTemplateSpec | undefined, old?: PodTemplateSpec): void {
  if (!tpl?.spec) return;
  const asPod = (t: PodTemplateSpec): Pod => ({ metadata: t.metadata ?? {}, spec: t.spec });
  dropDisabledPodFields(asPod(tpl), old?.spec ? asPod(old) : undefined);
}

/** layoutContainerCells: container names and images, comma separated, for `-o wide`. */
export function containerCells(containers: Container[] | undefined): { names: string; images: string } {
  const cs = list(containers);
  return { names: cs.map((c) => c.name ?? '').join(','), images: cs.map((c) => c.image ?? '').join(',') };
}

export const CONTAINERS_DOC = 'Names of each container in the template.';
export const IMAGES_DOC = 'Images referenced by each container in the template.';
