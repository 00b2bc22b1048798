// serviceaccounts/<name>/token (TokenRequest) and bearer-token authentication of the tokens it issues.
import type { KObject } from '../../api/types.js';
import { errors, FieldError, StatusError } from '../../machinery/errors.js';
import { rfc3339 } from '../../machinery/object.js';
import type { ServiceAccountTokens } from '../../pki/service-account-tokens.js';
import type { ActionHandler } from '../registry/actions.js';
import type { UserInfo } from '../context.js';
import type { Registry } from '../registry/registry.js';

const minSeconds = 600;
const maxSeconds = 2 ** 32;
const defaultSeconds = 3600;
const boundKinds: Record<string, { apiVersion: string; plural: string }> = {
  Pod: { apiVersion: 'v1', plural: 'pods' },
  Secret: { apiVersion: 'v1', plural: 'secrets' },
  Node: { apiVersion: 'v1', plural: 'nodes' },
};

interface TokenRequest extends KObject {
  spec?: { audiences?: string[]; expirationSeconds?: number; boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string } };
}

export function tokenRequestHandler(tokens: ServiceAccountTokens): ActionHandler {
  return async ({ store, registry, namespace, name, body, ctx }) => {
    const sa = await store.get(namespace, name);
    const tr = body as TokenRequest;
    const spec = { ...(tr.spec ?? {}) };
    const errs: FieldError[] = [];
    const exp = spec.expirationSeconds ?? defaultSeconds;
    if (exp < minSeconds) errs.push(FieldError.invalid('spec.expirationSeconds', exp, 'may not specify a duration less than 10 minutes'));
    if (exp > maxSeconds) errs.push(FieldError.invalid('spec.expirationSeconds', exp, 'may not specify a duration larger than 2^32 seconds'));
    let bound: { kind: string; name: string; uid: string } | undefined;
    const ref = spec.boundObjectRef;
    if (ref) {
      const k = boundKinds[ref.kind ?? ''];
      if (!k) errs.push(FieldError.notSupported('spec.boundObjectRef.kind', ref.kind ?? '', Object.keys(boundKinds)));
      else {
        const rs = registry.lookup('', 'v1', k.plural);
        if (!rs) throw errors.badRequest(`cannot bind a token to ${ref.kind}: not served`);
        const obj = await rs.get(k.plural === 'nodes' ? '' : namespace, ref.name ?? '');
        if (ref.uid && ref.uid !== obj.metadata.uid) {
          throw errors.conflict({ group: '', resource: k.plural }, ref.name ?? '', `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
        }
        bound = { kind: ref.kind!, name: ref.name!, uid: obj.metadata.uid! };
        spec.boundObjectRef = { ...ref, uid: obj.metadata.uid };
      }
    }
    if (errs.length) throw errors.invalid('TokenRequest', 'authentication.k8s.io', name, errs);
    const audiences = spec.audiences?.length ? spec.audiences : [tokens.issuer];
    spec.audiences = audiences;
    spec.expirationSeconds = exp;
    const { token, expiresAt } = await tokens.sign(
      { namespace, serviceAccount: { name, uid: sa.metadata.uid! }, bound },
      { audiences, expirationSeconds: exp },
    );
    void ctx;
    return {
      code: 201,
      object: {
        kind: 'TokenRequest',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { name, namespace, creationTimestamp: null },
        spec,
        status: { token, expirationTimestamp: rfc3339(expiresAt) },
      },
    };
  };
}

/** Authenticates service-account tokens: valid signature and times, and the account (and bound object) still exist. */
export function serviceAccountAuthenticator(tokens: ServiceAccountTokens, registry: Registry) {
  return async (token: string, audiences: string[] = [tokens.issuer]): Promise<UserInfo | undefined> => {
    const claims = await tokens.verify(token, audiences);
    const k = claims?.['kubernetes.io'];
    if (!k) return undefined;
    try {
      const sa = await registry.mustLookup('', 'v1', 'serviceaccounts').get(k.namespace, k.serviceaccount.name);
      if (sa.metadata.uid !== k.serviceaccount.uid) return undefined;
      for (const [kind, ref] of [['pods', k.pod], ['secrets', k.secret], ['nodes', k.node]] as const) {
        if (!ref) continue;
        const rs = registry.lookup('', 'v1', kind);
        if (!rs) return undefined;
        const obj = await rs.get(kind === 'nodes' ? '' : k.namespace, ref.name);
        if (obj.metadata.uid !== ref.uid || obj.metadata.deletionTimestamp) return undefined;
      }
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return undefined;
      throw e;
    }
    const extra: Record<string, string[]> = {};
    if (k.pod) {
      extra['authentication.kubernetes.io/pod-name'] = [k.pod.name];
      extra['authentication.kubernetes.io/pod-uid'] = [k.pod.uid];
    }
    if (claims.jti) extra['authentication.kubernetes.io/credential-id'] = [`JTI=${claims.jti}`];
    return {
      name: `system:serviceaccount:${k.namespace}:${k.serviceaccount.name}`,
      uid: k.serviceaccount.uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${k.namespace}`, 'system:authenticated'],
      extra,
    };
  };
}
