// Protobuf field numbers of apiregistration.k8s.io/v1 types, from the Go struct tags of
// k8s.io/kube-aggregator/pkg/apis/apiregistration/v1 (v0.33).
import type { ProtoTags } from '../../machinery/protobuf/decode.js';

const R = 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.';
/** A scalar whose zero value is still serialised (a pointer, or a JSON field without omitempty). */
const k = (tag: number) => ({ tag, keep: true });

export const apiregistrationProtoTags: ProtoTags = {
  [`${R}ServiceReference`]: { namespace: 1, name: 2, port: k(3) },
  [`${R}APIServiceSpec`]: {
    service: 1, group: 2, version: 3, insecureSkipTLSVerify: 4, caBundle: 5, groupPriorityMinimum: k(7), versionPriority: k(8),
  },
  [`${R}APIServiceCondition`]: { type: k(1), status: k(2), lastTransitionTime: 3, reason: 4, message: 5 },
  [`${R}APIServiceStatus`]: { conditions: 1 },
  [`${R}APIService`]: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [`${R}APIServiceList`]: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
};
