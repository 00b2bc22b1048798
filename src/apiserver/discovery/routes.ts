// Discovery and OpenAPI routes, generated from the registry's definitions on each request (cheap, and CRDs
// will change them at run time).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StatusError } from '../../machinery/errors.js';
import {
  apiGroupList,
  apiResourceList,
  apiVersions,
  aggregatedDiscovery,
  discoveryETag,
  discoveryVariant,
} from './documents.js';
import type { Registry } from '../registry/registry.js';
import { goJsonBody } from '../../machinery/go-json.js';
import { mergeAggregated, mergeGroupList, type RemoteDiscoverySource } from './remote-groups.js';

function send(reply: FastifyReply, body: unknown, contentType = 'application/json'): FastifyReply {
  return reply.code(200).header('content-type', contentType).send(Buffer.from(goJsonBody(JSON.stringify(body))));
}

/**
 * kube answers its advertise address and port (what the `kubernetes` Endpoints lists); k1s' is the address the
 * client's connection reached: 127.0.0.1 for the host, the pod network's gateway for pods, as the Endpoints say.
 */
function serverAddress(req: FastifyRequest): string {
  const { localAddress, localPort } = req.socket;
  if (!localAddress || !localPort) return req.hostname;
  const ip = localAddress.startsWith('::ffff:') ? localAddress.slice(7) : localAddress;
  return ip.includes(':') ? `[${ip}]:${localPort}` : `${ip}:${localPort}`;
}

const notFound = () => new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});

/** Caches documents per generation: they only change when resources (or remote groups) are added or changed. */
function memo<T>(generation: () => string): (key: string, make: () => T) => T {
  let gen = '';
  const cache = new Map<string, T>();
  return (key, make) => {
    const now = generation();
    if (gen !== now) {
      cache.clear();
      gen = now;
    }
    let v = cache.get(key);
    if (v === undefined) {
      v = make();
      cache.set(key, v);
    }
    return v;
  };
}

/** `aggregator`: where the remote APIServices' groups come from (none until it runs). */
export function registerDiscoveryRoutes(app: FastifyInstance, registry: Registry, aggregator?: { discovery?: RemoteDiscoverySource }): void {
  const defs = () => registry.definitions;
  const remote = () => aggregator?.discovery;
  const cached = memo<unknown>(() => `${registry.generation}/${remote()?.generation() ?? 0}`);
  const remoteGroups = () => remote()?.groups() ?? [];
  const groupList = () => cached('apis', () => mergeGroupList(apiGroupList(defs()), remoteGroups())) as ReturnType<typeof apiGroupList>;
  // Aggregated discovery carries an ETag that changes with the document (a CRD added or changed), and a client
  // holding the current one gets 304, as kube-apiserver answers it
  const aggregated = (req: FastifyRequest, reply: FastifyReply, which: 'api' | 'apis', v: NonNullable<ReturnType<typeof discoveryVariant>>) => {
    const doc = cached(`agg/${which}/${v.version}`, () => {
      const local = aggregatedDiscovery(defs(), which, v.version);
      const body = goJsonBody(JSON.stringify(which === 'apis' ? mergeAggregated(local, remoteGroups()) : local));
      return { body, etag: discoveryETag(body) };
    }) as { body: string; etag: string };
    reply.header('etag', doc.etag).header('vary', 'Accept');
    if (req.headers['if-none-match'] === doc.etag) return reply.code(304).send();
    return reply.code(200).header('content-type', v.contentType).send(Buffer.from(doc.body));
  };
  app.get('/api', async (req, reply) => {
    const v = discoveryVariant(req.headers.accept);
    if (v) return aggregated(req, reply, 'api', v);
    return send(reply, apiVersions(serverAddress(req)));
  });
  app.get('/apis', async (req, reply) => {
    const v = discoveryVariant(req.headers.accept);
    if (v) return aggregated(req, reply, 'apis', v);
    return send(reply, groupList());
  });
  app.get('/api/v1', async (_req, reply) => send(reply, apiResourceList(defs(), '', 'v1')));
  app.get('/apis/:group', async (req, reply) => {
    const { group } = req.params as { group: string };
    const g = groupList().groups.find((x: { name: string }) => x.name === group);
    if (!g) throw notFound();
    return send(reply, { kind: 'APIGroup', apiVersion: 'v1', ...g });
  });
  app.get('/apis/:group/:version', async (req, reply) => {
    const { group, version } = req.params as { group: string; version: string };
    if (!defs().some((d) => d.group === group && d.version === version)) throw notFound();
    return send(reply, apiResourceList(defs(), group, version));
  });
  // The OpenAPI generators load on the first OpenAPI request, not at start-up.
  const openapi = () => import('../openapi/index.js');
  app.get('/openapi/v2', async (req, reply) => {
    const { negotiateOpenapiV2, OPENAPI_V2_PROTOBUF, openapiV2, openapiV2Protobuf } = await openapi();
    // client-go asks for the protobuf form only
    const form = negotiateOpenapiV2(req.headers.accept);
    if (!form) throw new StatusError(406, 'NotAcceptable', 'only application/json and protobuf OpenAPI v2 are served');
    if (form === 'protobuf') {
      const pb = cached('v2pb', () => openapiV2Protobuf(cached('v2', () => openapiV2(defs(), registry.schemas)) as ReturnType<typeof openapiV2>));
      return reply.code(200).header('content-type', OPENAPI_V2_PROTOBUF).send(pb);
    }
    return send(reply, cached('v2', () => openapiV2(defs(), registry.schemas)));
  });
  app.get('/openapi/v3', async (_req, reply) => {
    const { openapiV3Index } = await openapi();
    return send(reply, cached('v3', () => openapiV3Index(defs(), registry.schemas)));
  });
  app.get('/openapi/v3/*', async (req, reply) => {
    const { openapiV3GroupVersion, parseOpenapiV3Path } = await openapi();
    const gv = req.url.split('?')[0].slice('/openapi/v3/'.length);
    const p = parseOpenapiV3Path(gv);
    if (!p || !defs().some((d) => d.group === p.group && d.version === p.version)) throw notFound();
    const doc = cached(`v3/${p.group}/${p.version}`, () => openapiV3GroupVersion(defs(), registry.schemas, gv));
    return send(reply, doc);
  });
}
