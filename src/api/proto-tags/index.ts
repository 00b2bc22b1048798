// Protobuf field numbers of every built-in type, merged from the per-group tables (proto-tags-*.ts), for
// decoding Kubernetes protobuf request bodies (machinery/protobuf.ts).
import type { ProtoTags } from '../../machinery/protobuf/decode.js';
import { authProtoTags } from './auth.js';
import { coordinationEventsProtoTags } from './coordination-events.js';
import { coreProtoTags } from './core.js';
import { metaProtoTags } from './meta.js';
import { networkingProtoTags } from './networking.js';
import { podProtoTags } from './pod.js';
import { policyProtoTags } from './policy-scheduling-autoscaling.js';
import { workloadsProtoTags } from './apps-batch.js';
import { nodeExtraProtoTags } from './node.js';
import { networkingExtraProtoTags } from './discovery-storage-certificates.js';
import { authExtraProtoTags } from './admission-apiextensions.js';
import { apiregistrationProtoTags } from './apiregistration.js';

export { missingProtoTags, type ProtoField, type ProtoTags } from '../../machinery/protobuf/decode.js';

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
  ...apiregistrationProtoTags,
};
