// The client of commands that act on a running cluster through a kubeconfig (--kubeconfig, else $KUBECONFIG's
// first file, else ~/.kube/config; --context, else its current one), as kubectl picks it.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { HttpClient } from '../client/http.js';
import { loadKubeconfig } from '../client/kubeconfig.js';

export type KubeconfigTarget = ReturnType<typeof loadKubeconfig>;

/** The client and its kubeconfig's target, or undefined once the reason is printed (exit 1). */
export function kubeconfigClient(command: string, values: { kubeconfig?: string; context?: string }): { client: HttpClient; config: KubeconfigTarget } | undefined {
  const file = values.kubeconfig ?? process.env.KUBECONFIG?.split(':')[0] ?? join(homedir(), '.kube', 'config');
  try {
    const config = loadKubeconfig(file, values.context);
    return { client: new HttpClient(config, `k1s-${command}`), config };
  } catch (e) {
    console.error(`k1s ${command}: cannot read kubeconfig ${file}: ${(e as Error).message}; pass --kubeconfig FILE`);
    return undefined;
  }
}
