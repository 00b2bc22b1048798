// Protobuf field numbers of every built-in type, merged from the per-group tables (proto-tags-*.ts), for
// decoding Kubernetes protobuf request bodies (machinery/protobuf.ts).
import type { ProtoTags } from '../machinery/protobuf.js';
import { authProtoTags } from './proto-tags-auth.js';
import { coordinationEventsProtoTags } from './proto-tags-coordination.js';
import { coreProtoTags } from './proto-tags-core.js';
import { metaProtoTags } from './proto-tags-meta.js';
import { networkingProtoTags } from './proto-tags-networking.js';
import { podProtoTags } from './proto-tags-pod.js';
import { policyProtoTags } from './proto-tags-policy.js';
import { workloadsProtoTags } from './proto-tags-workloads.js';
import { nodeExtraProtoTags } from './proto-tags-node-extra.js';
import { networkingExtraProtoTags } from './proto-tags-networking-extra.js';
import { authExtraProtoTags } from './proto-tags-auth-extra.js';

export { missingProtoTags, type ProtoField, type ProtoTags } from '../machinery/protobuf.js';

export const protoTags: ProtoTags = {
  ...metaProtoTags,
  ...coreProtoTags,
  ...podProtoTags,
  ...coordinationEventsProtoTags,
  ...workloadsProtoTags,
  ...authProtoTags,
  ...networkingProtoTags,
  ...policyProtoTags,
  ...nodeExtraProtoTags,
  ...networkingExtraProtoTags,
  ...authExtraProtoTags,
};
