// The kubelet's own /metrics: its build info, the process figures and how many pods and containers run, read from
// the runtime at each scrape (kubelet_running_pods, kubelet_running_containers).
import type * as PromClient from 'prom-client';
import { Gauge } from '../../metrics/family.js';
import { componentRegistry, renderRegistry } from '../../metrics/metrics.js';
import { versionInfo } from '../../machinery/version.js';
import type { KubeletStatsSource } from './provider.js';

export class KubeletMetrics {
  private registry?: PromClient.Registry;

  constructor(private readonly stats: () => KubeletStatsSource | undefined) {}

  private build(): PromClient.Registry {
    const pods = new Gauge({ name: 'kubelet_running_pods', help: 'Number of pods that have a running pod sandbox', stability: 'ALPHA' });
    const containers = new Gauge({ name: 'kubelet_running_containers', help: 'Number of containers currently running', stability: 'ALPHA', labelNames: ['container_state'] });
    // one read of the runtime per scrape, whichever family asks first (prom-client collects them concurrently)
    let pending: Promise<void> | undefined;
    const read = async () => {
      const s = await this.stats()?.runningSamples?.();
      if (!s) return;
      pods.with().set(s.pods.length);
      containers.with('running').set(s.pods.reduce((n, p) => n + p.containers.length, 0));
    };
    pods.collect = containers.collect = () => (pending ??= read().finally(() => (pending = undefined)));
    return componentRegistry([pods, containers], { version: versionInfo() });
  }

  render(accept: string | undefined): Promise<{ contentType: string; body: string }> {
    return renderRegistry((this.registry ??= this.build()), accept);
  }
}
