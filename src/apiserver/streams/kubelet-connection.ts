// Finding and dialling a node's kubelet (kube-apiserver's NodeConnectionInfoGetter): the host is the Node's
// preferred address (InternalIP first here, as k3s configures it), the port its
// status.daemonEndpoints.kubeletEndpoint.Port (10250 when unset); the API server authenticates with its
// kubelet-client certificate and checks the kubelet's serving certificate against the cluster CA.
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { createClientCert, type CertKeyPem } from '../../pki/certs.js';
import { errors, StatusError } from '../../machinery/errors.js';
import type { KObject } from '../../api/types.js';
import { dialUrl } from './upgrade-proxy.js';

export const DEFAULT_KUBELET_PORT = 10250;
const preferredAddressTypes = ['InternalIP', 'Hostname', 'InternalDNS', 'ExternalDNS', 'ExternalIP'];

/** The identity kube-apiserver presents to kubelets (kubeadm's apiserver-kubelet-client). */
export function issueKubeletClientCert(ca: CertKeyPem): Promise<CertKeyPem> {
  return createClientCert(ca, { commonName: 'kube-apiserver-kubelet-client', organizations: ['system:masters'] });
}

export interface KubeletClientTls {
  certPem: string;
  keyPem: string;
  /** the CA the kubelet serving certificates chain to */
  caPem: string;
}

interface NodeLike extends KObject {
  status?: {
    addresses?: { type?: string; address?: string }[];
    daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
  };
}

export interface KubeletEndpoint {
  host: string;
  port: number;
}

/** GetConnectionInfo: where the node's kubelet listens. */
export function kubeletEndpoint(node: NodeLike): KubeletEndpoint {
  const addrs = node.status?.addresses ?? [];
  let host: string | undefined;
  for (const t of preferredAddressTypes) {
    host = addrs.find((a) => a.type === t && a.address)?.address;
    if (host) break;
  }
  if (!host) throw errors.badRequest(`no preferred addresses found; known addresses: [${addrs.map((a) => `{${a.type} ${a.address}}`).join(' ')}]`);
  const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port;
  return { host, port: port && port > 0 ? port : DEFAULT_KUBELET_PORT };
}

export class KubeletConnection {
  constructor(private readonly tls: KubeletClientTls) {}

  private tlsOptions() {
    return {
      cert: this.tls.certPem,
      key: this.tls.keyPem,
      ca: this.tls.caPem,
      // the chain is verified; the name is not (nodes are dialled by IP, and k1s' kubelet certs name the node)
      checkServerIdentity: () => undefined,
    };
  }

  url(ep: KubeletEndpoint, path: string): URL {
    const host = ep.host.includes(':') ? `[${ep.host}]` : ep.host;
    return new URL(`https://${host}:${ep.port}${path}`);
  }

  /** A TLS connection to the kubelet, for an upgrade request. */
  dial(ep: KubeletEndpoint): Promise<Socket> {
    return dialUrl(this.url(ep, '/'), this.tlsOptions()).catch((e: Error) => {
      throw errors.internal(`error dialing backend: ${e.message}`);
    });
  }

  /** A plain GET (container logs); resolves with the kubelet's response, status and all. */
  get(ep: KubeletEndpoint, path: string, signal?: AbortSignal): Promise<IncomingMessage> {
    const url = this.url(ep, path);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(url, { method: 'GET', agent: false, signal, ...this.tlsOptions() }, resolve);
      req.on('error', (e) => reject(e instanceof StatusError ? e : errors.internal(`Get "${url.href}": ${e.message}`)));
      req.end();
    });
  }
}
