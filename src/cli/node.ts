// `k1s node add|remove|ls`: simulated nodes at run time. Adding creates a Node object carrying the
// k1s.dev/simulated annotation; the server's simulated-node manager adopts it and runs its kubelet.
import { parseArgs } from 'node:util';
import { kubeconfigClient } from './kubeconfig-client.js';
import type { KObject } from '../api/types.js';
import { StatusError } from '../machinery/errors.js';

const help = `Usage: k1s node <add|remove|ls> [flags]

Adds, removes and lists simulated nodes of a running k1s cluster (nodes that need no container runtime).

Examples:
  k1s node add --simulated worker-1
  k1s node add --simulated big-1 --cpu 64 --memory 512Gi --pods 250 --zone zone-b
  k1s node ls
  k1s node remove worker-1

Flags:
  --simulated              add a simulated node (the only kind k1s adds at run time)
  --cpu N                  CPU capacity (default 32)
  --memory Q               memory capacity (default 256Gi)
  --pods N                 pod capacity (default 110)
  --zone Z                 topology.kubernetes.io/zone label (default: spread over zone-a, zone-b, zone-c)
  --kubeconfig FILE        cluster to act on (default $KUBECONFIG, else ~/.kube/config)
  --context NAME           kubeconfig context (default: the current one)
  -h, --help               show this help`;

import { SIMULATED_ANNOTATION } from '../kubelet/simulated/nodes.js';

export async function nodeCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        simulated: { type: 'boolean' },
        cpu: { type: 'string' },
        memory: { type: 'string' },
        pods: { type: 'string' },
        zone: { type: 'string' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
  } catch (e) {
    console.error(`k1s node: ${(e as Error).message}\n\n${help}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(help);
    return 0;
  }
  const [verb, name] = positionals;
  const usageError = (msg: string) => {
    console.error(`k1s node: ${msg}\n\n${help}`);
    return 2;
  };
  if (!verb || !['add', 'remove', 'rm', 'ls', 'list'].includes(verb)) return usageError('say add, remove or ls');
  if ((verb === 'add' || verb === 'remove' || verb === 'rm') && !name) return usageError(`"${verb}" needs a node name`);
  if (verb === 'add' && !values.simulated) return usageError('only simulated nodes can be added at run time: add --simulated');
  const target = kubeconfigClient('node', values);
  if (!target) return 1;
  const { client } = target;
  const nodes = client.resource('v1', 'nodes');
  try {
    if (verb === 'add') {
      const annotations: Record<string, string> = { [SIMULATED_ANNOTATION]: 'true' };
      const labels: Record<string, string> = {};
      if (values.zone) labels['topology.kubernetes.io/zone'] = values.zone;
      // Nodes keep their status on create: the simulated kubelet that adopts this Node reports this capacity
      const capacity = { cpu: values.cpu ?? '32', memory: values.memory ?? '256Gi', pods: values.pods ?? '110' };
      await nodes.create('', { apiVersion: 'v1', kind: 'Node', metadata: { name, annotations, labels }, status: { capacity, allocatable: capacity } } as KObject);
      console.log(`node/${name} added (simulated)`);
    } else if (verb === 'remove' || verb === 'rm') {
      const n = await nodes.get('', name);
      if (n.metadata.annotations?.[SIMULATED_ANNOTATION] !== 'true') {
        console.error(`k1s node: ${name} is not a simulated node; use kubectl delete node ${name} to remove it from the API`);
        return 1;
      }
      await nodes.delete('', name);
      console.log(`node/${name} removed`);
    } else {
      const list = await nodes.list('');
      console.log(['NAME'.padEnd(24), 'TYPE'.padEnd(10), 'READY'].join(' '));
      for (const n of list.items) {
        const ready = ((n.status as { conditions?: { type: string; status: string }[] })?.conditions ?? []).find((c) => c.type === 'Ready')?.status ?? 'Unknown';
        const type = n.metadata.annotations?.[SIMULATED_ANNOTATION] === 'true' ? 'simulated' : 'kubelet';
        console.log([n.metadata.name!.padEnd(24), type.padEnd(10), ready].join(' '));
      }
    }
    return 0;
  } catch (e) {
    if (e instanceof StatusError) console.error(`Error from server (${e.reason}): ${e.message}`);
    else console.error(`k1s node: ${(e as Error).message}`);
    return 1;
  } finally {
    client.close();
  }
}
