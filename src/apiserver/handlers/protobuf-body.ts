// Kubernetes protobuf request bodies (kubectl's typed commands send them) decoded to the JSON objects k1s stores.
import { decodeK8sProtobuf, PROTOBUF_MEDIA_TYPE } from '../../machinery/protobuf/decode.js';
import type { SchemaSet } from '../../machinery/schema.js';
import { protoTags } from '../../api/proto-tags/index.js';

export const protobufMediaType = PROTOBUF_MEDIA_TYPE;

/** Schema names of kinds that are not resources but travel as bodies (options, Scale). */
const bodyKinds: Record<string, string> = {
  DeleteOptions: 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  Scale: 'io.k8s.api.autoscaling.v1.Scale',
  TokenRequest: 'io.k8s.api.authentication.v1.TokenRequest',
  Binding: 'io.k8s.api.core.v1.Binding',
  Eviction: 'io.k8s.api.policy.v1.Eviction',
};

export function decodeProtobufBody(
  schemas: SchemaSet,
  body: Buffer,
  kindSchema: (apiVersion: string, kind: string) => string | undefined,
): Record<string, unknown> {
  return decodeK8sProtobuf(body, schemas, protoTags, (apiVersion, kind) => {
    const named = kindSchema(apiVersion, kind);
    if (named) return named;
    const other = bodyKinds[kind];
    return other && schemas.has(other) ? other : undefined;
  });
}
