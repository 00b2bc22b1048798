// GET /metrics: every component's families of this cluster (kube serves the scheduler's and the controller
// manager's on their own ports; k1s is one process). Authorization is the server's, as for any non-resource URL:
// cluster-admin, system:monitoring, or a ClusterRole with nonResourceURLs ["/metrics"].
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics/metrics.js';
import type { Registry } from './registry/registry.js';

/** apiserver_storage_objects: counted at scrape time (kube refreshes it on a timer from each resource's store) */
function countStoredObjects(registry: Registry, metrics: Metrics): void {
  const gauge = metrics.storage.objects;
  gauge.collect = async () => {
    gauge.reset();
    const seen = new Set<string>();
    const counts: Promise<void>[] = [];
    for (const def of registry.definitions) {
      const rs = registry.lookup(def.group, def.version, def.plural);
      // computed kinds (reviews, bindings) and other versions' views store nothing of their own
      if (!rs || seen.has(rs.keyPrefix) || def.storedAs || def.virtual || (def.verbs && !def.verbs.includes('list'))) continue;
      seen.add(rs.keyPrefix);
      const resource = def.group ? `${def.plural}.${def.group}` : def.plural;
      counts.push(registry.store.count(rs.keyPrefix).then((n) => gauge.with(resource).set(n), () => gauge.with(resource).set(-1)));
    }
    await Promise.all(counts);
  };
}

export function registerMetricsRoute(app: FastifyInstance, registry: Registry, metrics: Metrics): void {
  countStoredObjects(registry, metrics);
  app.get('/metrics', async (req, reply) => {
    const { contentType, body } = await metrics.render(req.headers.accept);
    return reply.code(200).header('content-type', contentType).send(body);
  });
}
