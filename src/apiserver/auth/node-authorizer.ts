// The Node authorizer (--authorization-mode=Node; plugin/pkg/auth/authorizer/node/node_authorizer.go, 1.33 with
// AuthorizeNodeWithSelectors on): requests of a kubelet (user system:node:<name> in group system:nodes) for secrets,
// configmaps, PVCs, PVs, ResourceClaims, VolumeAttachments, service account tokens and pods are allowed only for
// objects related to that node in the graph; its Node, Lease and CSINode by name; everything else by the fixed node
// rules. Everything it does not allow is "no opinion", so the next authorizer (RBAC) decides.
import type { RequestUser } from '../../api/types.js';
import { NODE_RULES } from '../../api/rbac/bootstrap.js';
import { rulesAllow, type PolicyRule, type RequestAttributes } from '../../api/rbac/rules.js';
import { parseFieldSelector } from '../../machinery/fields.js';
import type { Authorizer, Decision } from './rbac-authorizer.js';
import type { NodeGraph, VertexType } from './node-graph.js';
import { NODE_USER_PREFIX, NODES_GROUP } from '../../pki/node-credential.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** The node a user is (kube's NodeIdentifier): '' for a node user without a name, undefined for anyone else. */
export function nodeIdentity(user: RequestUser): string | undefined {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !(user.groups ?? []).includes(NODES_GROUP)) return undefined;
  return user.name.slice(NODE_USER_PREFIX.length);
}

const allow: Decision = { allowed: true, reason: '' };
const noOpinion = (reason = ''): Decision => ({ allowed: false, reason });

export class NodeAuthorizer implements Authorizer {
  constructor(private readonly graph: Pick<NodeGraph, 'hasPath'>) {}

  authorize(user: RequestUser, attrs: RequestAttributes): Decision {
    const node = nodeIdentity(user);
    if (node === undefined) return noOpinion();
    if (node === '') return noOpinion(`unknown node for user "${user.name}"`);
    if (attrs.resourceRequest) {
      const d = this.subdivided(node, attrs);
      if (d) return d;
    }
    return rulesAllow(attrs, NODE_RULES) ? allow : noOpinion();
  }

  /** nodes' rules cannot be listed: they depend on the graph */
  rulesFor(): PolicyRule[] {
    return [];
  }

  resolveRules(user: RequestUser): { rules: PolicyRule[]; errors: string[] } {
    return { rules: [], errors: nodeIdentity(user) === undefined ? [] : ['node authorizer does not support user rule resolution'] };
  }

  /** the decision for resources the node authorizer subdivides; undefined for the rest (the node rules decide) */
  private subdivided(node: string, a: RequestAttributes): Decision | undefined {
    switch (`${a.apiGroup}/${a.resource}`) {
      case '/secrets':
        return this.readNamespaced(node, 'secret', a);
      case '/configmaps':
        return this.readNamespaced(node, 'configmap', a);
      case '/persistentvolumeclaims':
        return a.subresource === 'status' ? this.statusUpdate(node, 'pvc', a) : this.get(node, 'pvc', a);
      case '/persistentvolumes':
        return this.get(node, 'pv', a);
      case 'resource.k8s.io/resourceclaims':
        return this.get(node, 'resourceclaim', a);
      case 'storage.k8s.io/volumeattachments':
        return this.get(node, 'volumeattachment', a);
      case '/serviceaccounts':
        return this.createToken(node, a);
      case 'coordination.k8s.io/leases':
        return this.lease(node, a);
      case 'storage.k8s.io/csinodes':
        return this.csiNode(node, a);
      case '/nodes':
        return this.node(node, a);
      case '/pods':
        return this.pod(node, a);
      default:
        return undefined;
    }
  }

  private related(node: string, type: VertexType, a: RequestAttributes): Decision {
    if (!a.name) return noOpinion('No Object name found');
    return this.graph.hasPath(node, type, a.namespace, a.name) ? allow : noOpinion(`no relationship found between node '${node}' and this object`);
  }

  private statusUpdate(node: string, type: VertexType, a: RequestAttributes): Decision {
    if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    if (a.subresource !== 'status') return noOpinion('can only update status subresource');
    return this.related(node, type, a);
  }

  private get(node: string, type: VertexType, a: RequestAttributes): Decision {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (a.subresource) return noOpinion('cannot get subresource');
    return this.related(node, type, a);
  }

  private readNamespaced(node: string, type: VertexType, a: RequestAttributes): Decision {
    if (a.verb !== 'get' && a.verb !== 'list' && a.verb !== 'watch') return noOpinion('can only read resources of this type');
    if (a.subresource) return noOpinion('cannot read subresource');
    if (!a.namespace) return noOpinion('can only read namespaced object of this type');
    return this.related(node, type, a);
  }

  private createToken(node: string, a: RequestAttributes): Decision {
    if (a.verb !== 'create' || !a.name) return noOpinion('can only create tokens for individual service accounts');
    if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.related(node, 'serviceaccount', a);
  }

  private lease(node: string, a: RequestAttributes): Decision {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
    if (a.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
    // a create's name is in the body: NodeRestriction checks it
    if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access node lease with the same name as the requesting node');
    return allow;
  }

  private csiNode(node: string, a: RequestAttributes): Decision {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
    if (a.subresource) return noOpinion('cannot authorize CSINode subresources');
    if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access CSINode with the same name as the requesting node');
    return allow;
  }

  private node(node: string, a: RequestAttributes): Decision {
    if (!a.subresource) {
      // NodeRestriction limits writes to the node's own object
      if (a.verb === 'create' || a.verb === 'update' || a.verb === 'patch') return allow;
      if (a.verb === 'get' || a.verb === 'list' || a.verb === 'watch') {
        // by name, not the graph: a kubelet reads its Node before it exists
        if (a.name === node) return allow;
        return noOpinion(a.name ? `node '${node}' cannot read '${a.name}', only its own Node object` : `node '${node}' cannot read all nodes, only its own Node object`);
      }
    } else if (a.subresource === 'status' && (a.verb === 'update' || a.verb === 'patch')) {
      return allow;
    }
    return noOpinion();
  }

  private pod(node: string, a: RequestAttributes): Decision {
    if (!a.subresource) {
      if (a.verb === 'get') return this.get(node, 'pod', a);
      if (a.verb === 'list' || a.verb === 'watch') {
        if (selectsNode(a.fieldSelector, node)) return allow;
        if (a.name) return this.related(node, 'pod', a);
        return noOpinion('can only list/watch pods with spec.nodeName field selector');
      }
      // mirror pods; NodeRestriction limits them to pods bound to the node
      if (a.verb === 'create' || a.verb === 'delete') return allow;
    } else if (a.subresource === 'status' && (a.verb === 'update' || a.verb === 'patch')) {
      return allow;
    } else if (a.subresource === 'eviction' && a.verb === 'create') {
      return allow;
    }
    return noOpinion();
  }
}

function selectsNode(selector: string | undefined, node: string): boolean {
  if (!selector) return false;
  try {
    return parseFieldSelector(selector).requirements.some((r) => r.field === 'spec.nodeName' && r.operator === '=' && r.value === node);
  } catch {
    return false;
  }
}
