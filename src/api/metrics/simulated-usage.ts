// Simulated resource usage, as a kubelet's summary API would report it to metrics-server: each running container
// uses what the pod's `sim.k1s.dev/cpu-usage` / `sim.k1s.dev/memory-usage` annotation says (one quantity for every
// container, or a JSON map by container name), else its own request. A node uses the sum of its running pods.
import { Quantity } from '../../machinery/quantity.js';
import type { KeyValue, Store, Watch, WatchEvent } from '../../storage/types.js';
import type { KObject } from '../types.js';

export const CPU_USAGE_ANNOTATION = 'sim.k1s.dev/cpu-usage';
export const MEMORY_USAGE_ANNOTATION = 'sim.k1s.dev/memory-usage';

const ANNOTATION: Record<string, string> = { cpu: CPU_USAGE_ANNOTATION, memory: MEMORY_USAGE_ANNOTATION };

interface ContainerLike {
  name: string;
  resources?: { requests?: Record<string, unknown> };
}

interface PodLike extends KObject {
  spec?: { nodeName?: string; containers?: ContainerLike[] };
  status?: { phase?: string };
}

function quantity(v: unknown): Quantity | undefined {
  try {
    return v === undefined || v === null || v === '' ? undefined : Quantity.fromJSON(v);
  } catch {
    return undefined;
  }
}

/** The annotation's value for one container: a plain quantity applies to all, a JSON object names containers. */
function annotated(pod: KObject, resource: string, container: string): Quantity | undefined {
  const raw = pod.metadata.annotations?.[ANNOTATION[resource]];
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (text.startsWith('{')) {
    try {
      return quantity((JSON.parse(text) as Record<string, unknown>)[container]);
    } catch {
      return undefined;
    }
  }
  return quantity(text);
}

/** Whether a pod has running containers to report (metrics-server only knows pods the kubelet runs). */
export function podReportsMetrics(pod: KObject): boolean {
  const p = pod as PodLike;
  return p.status?.phase === 'Running' && !!p.spec?.nodeName;
}

/** Per-container usage of cpu and memory (zero when neither annotated nor requested). */
export function containerUsage(pod: KObject): { name: string; usage: { cpu: Quantity; memory: Quantity } }[] {
  return ((pod as PodLike).spec?.containers ?? []).map((c) => {
    const of = (r: string, format: 'DecimalSI' | 'BinarySI') =>
      annotated(pod, r, c.name) ?? quantity(c.resources?.requests?.[r]) ?? Quantity.fromInt(0, format);
    return { name: c.name, usage: { cpu: of('cpu', 'DecimalSI'), memory: of('memory', 'BinarySI') } };
  });
}

/**
 * Running pods by node, fed by a store watch (the way NamespaceStates follows namespaces), so NodeMetrics can be
 * computed synchronously from a node object. It follows pods only while node metrics are asked for: from the first
 * read (NodeMetrics' prepare) until none came for idleMs. Otherwise every pod's JSON would sit here (~4.5 KB a pod)
 * and every pod key would count as watched, which makes each pod write keep its decoded revision for watchers.
 */
export class PodsByNode {
  /** raw JSON until a metrics request needs the object: most pod writes are never asked about */
  private byKey = new Map<string, string | KObject>();
  private watch?: Watch;
  private started?: Promise<void>;
  private generation = 0;
  private lastUsed = 0;
  private idleTimer?: ReturnType<typeof setInterval>;
  private byNode?: Map<string, KObject[]>;

  constructor(
    private readonly store: Store,
    private readonly podPrefix = '/registry/core/pods/',
    private readonly idleMs = 5 * 60_000,
  ) {}

  /** Starts following pods at the first call; resolves once the pods are known. */
  ready(): Promise<void> {
    this.lastUsed = Date.now();
    if (!this.started) {
      this.started = this.start(++this.generation);
      this.idleTimer = setInterval(() => {
        if (Date.now() - this.lastUsed >= this.idleMs) this.stop();
      }, Math.min(this.idleMs, 60_000));
      this.idleTimer.unref?.();
    }
    return this.started;
  }

  private async start(generation: number): Promise<void> {
    const page = await this.store.list(this.podPrefix);
    if (generation !== this.generation) return; // stopped meanwhile
    for (const kv of page.kvs) this.record({ type: 'ADDED', kv });
    this.watch = this.store.watch(this.podPrefix, { afterRevision: page.revision }, (ev) => this.record(ev));
  }

  private record(ev: WatchEvent | { type: 'ADDED'; kv: KeyValue }): void {
    this.byNode = undefined;
    if (ev.type === 'DELETED') {
      this.byKey.delete(ev.kv.key);
      return;
    }
    this.byKey.set(ev.kv.key, ev.kv.value);
  }

  /** The pods on a node that report metrics (after ready()). */
  onNode(node: string): KObject[] {
    this.lastUsed = Date.now();
    this.byNode ??= this.index();
    return this.byNode.get(node) ?? [];
  }

  /** reporting pods by node, decoding what changed since the last index (a NodeMetrics list asks once per node) */
  private index(): Map<string, KObject[]> {
    const out = new Map<string, KObject[]>();
    for (const [k, v] of this.byKey) {
      let p = v as KObject;
      if (typeof v === 'string') this.byKey.set(k, (p = JSON.parse(v) as KObject));
      if (!podReportsMetrics(p)) continue;
      const node = (p as PodLike).spec!.nodeName!;
      const list = out.get(node);
      if (list) list.push(p);
      else out.set(node, [p]);
    }
    return out;
  }

  /** Stops following pods and forgets them; the next ready() starts again. */
  stop(): void {
    this.generation++;
    this.watch?.stop();
    this.watch = undefined;
    this.byKey = new Map();
    this.byNode = undefined;
    this.started = undefined;
    clearInterval(this.idleTimer);
  }
}
