// The node's host-facing network services: LoadBalancer Services on 127.0.0.1 and the built-in ingress controller.
// A taken port is reported and skipped, never fatal: the cluster is useful without them.
import type { Client } from '../client/types.js';
import { startIngressController } from '../network/ingress/controller.js';
import { startServiceLoadBalancer } from '../network/service-lb/load-balancer.js';

export interface NetworkServiceOptions {
  ingressHttpPort?: number;
  ingressHttpsPort?: number;
  disableIngress?: boolean;
  disableServiceLB?: boolean;
}

/** Starts what is enabled; returns the stop functions. */
export async function startNetworkServices(client: Client, opts: NetworkServiceOptions, log: (line: string) => void): Promise<(() => Promise<void> | void)[]> {
  const stoppers: (() => Promise<void> | void)[] = [];
  if (!opts.disableServiceLB) {
    const lb = await startServiceLoadBalancer({ client, log });
    stoppers.push(() => lb.stop());
  }
  if (!opts.disableIngress) {
    const httpPort = opts.ingressHttpPort ?? 80;
    const httpsPort = opts.ingressHttpsPort ?? 443;
    try {
      const ingress = await startIngressController({ client, httpPort, httpsPort, log });
      stoppers.push(() => ingress.stop());
      log(`k1s: ingress controller serving http://127.0.0.1:${ingress.ports.http} and https://127.0.0.1:${ingress.ports.https}`);
    } catch (e) {
      log(`k1s: ingress controller not started: ${(e as Error).message} (choose other ports with --ingress-http-port/--ingress-https-port, or --disable-ingress)`);
    }
  }
  return stoppers;
}
