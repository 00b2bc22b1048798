// Protobuf field numbers of node.k8s.io/v1 types (RuntimeClass), from the Go struct tags of
// k8s.io/api/node/v1/types.go (1.33). The batch, autoscaling, policy and scheduling types are in
// apps-batch.ts and policy-scheduling-autoscaling.ts.
import type { ProtoTags } from '../../machinery/protobuf/decode.js';

const N = 'io.k8s.api.node.v1.';
/** A scalar whose zero value is still serialised (a pointer, or a JSON field without omitempty). */
const k = (tag: number) => ({ tag, keep: true });

export const nodeExtraProtoTags: ProtoTags = {
  [N + 'RuntimeClass']: { apiVersion: 0, kind: 0, metadata: 1, handler: k(2), overhead: 3, scheduling: 4 },
  [N + 'RuntimeClassList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [N + 'Overhead']: { podFixed: 1 },
  [N + 'Scheduling']: { nodeSelector: 1, tolerations: 2 },
};
