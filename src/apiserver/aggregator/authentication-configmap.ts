// kube-system/extension-apiserver-authentication: what extension API servers read to trust the requests the
// aggregator proxies (kube-apiserver's ClusterAuthenticationInfo controller): the CA of client certificates, and
// for the request-header scheme the front-proxy CA, the names it may carry and the header names.
import type { KObject } from '../../api/types.js';
import { FRONT_PROXY_CLIENT_NAME } from '../../pki/front-proxy.js';

export const EXTENSION_AUTH_CONFIGMAP = 'extension-apiserver-authentication';

export function extensionAuthenticationConfigMap(opts: { clientCaPem: string; requestHeaderCaPem: string }): KObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: EXTENSION_AUTH_CONFIGMAP, namespace: 'kube-system' },
    data: {
      'client-ca-file': opts.clientCaPem,
      'requestheader-allowed-names': JSON.stringify([FRONT_PROXY_CLIENT_NAME]),
      'requestheader-client-ca-file': opts.requestHeaderCaPem,
      'requestheader-extra-headers-prefix': JSON.stringify(['X-Remote-Extra-']),
      'requestheader-group-headers': JSON.stringify(['X-Remote-Group']),
      'requestheader-username-headers': JSON.stringify(['X-Remote-User']),
    },
  };
}
