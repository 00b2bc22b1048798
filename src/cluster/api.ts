// The API machinery of one cluster (registry, admission chain, actions) over a store, without the HTTPS server:
// Cluster.start serves it, and controller tests run the same thing in process.
import { builtinResources, baseDefinitions } from '../api/index.js';
import { namespaceLifecycle } from '../apiserver/admission/namespace-lifecycle.js';
import { Registry } from '../apiserver/registry/registry.js';
import { CustomResourceController } from '../apiserver/customresources/controller.js';
import { WebhookDispatcher, webhookAdmission } from '../apiserver/admission/webhook/dispatcher.js';
import { ValidatingPolicies, validatingPolicyAdmission } from '../apiserver/admission/policy/plugin.js';
import type { CustomResourceDefinition } from '../api/apiextensions/index.js';
import { LocalClient } from '../client/local.js';
import { csrRequester } from '../apiserver/admission/csr-requester.js';
import { rbacEscalation } from '../apiserver/admission/rbac-escalation.js';
import { serviceAllocation } from '../apiserver/admission/service-ip.js';
import { componentStatuses, kubernetesService } from '../api/core/more-kinds.js';
import { builtinPriorityClasses } from '../api/scheduling/index.js';
import type { ServiceAccountTokens } from '../pki/service-account-tokens.js';
import { serviceAccountAuthenticator, tokenRequestHandler } from '../apiserver/auth/serviceaccount-token.js';
import { registerPodActions } from '../apiserver/pods/actions.js';
import { cachedTokenAuthenticator } from '../apiserver/auth/token-cache.js';
import { BOOTSTRAP_TOKEN_PATTERN, bootstrapTokenAuthenticator } from '../apiserver/auth/bootstrap-token.js';
import { serviceAccountAdmission } from '../apiserver/admission/serviceaccount.js';
import { nodeRestriction } from '../apiserver/admission/node-restriction.js';
import { defaultTolerationSeconds } from '../apiserver/admission/default-tolerations.js';
import { podPriorityAdmission, priorityClassAdmission } from '../apiserver/admission/priority.js';
import { limitRangerAdmission } from '../apiserver/admission/limitranger.js';
import { podSecurityAdmission } from '../apiserver/admission/pod-security/plugin.js';
import type { PodSecurityConfig } from '../apiserver/admission/pod-security/config.js';
import { resourceQuotaAdmission } from '../apiserver/admission/resourcequota.js';
import {
  defaultStorageClassAdmission, persistentVolumeClaimResizeAdmission, storageObjectInUseProtectionAdmission,
} from '../apiserver/admission/storage.js';
import { defaultLocalPathStorageClass } from '../controllers/volume/local-path-provisioner.js';
import { metricsResources } from '../api/metrics/index.js';
import type { RealUsageSource } from '../api/metrics/real-usage.js';
import type { Store } from '../storage/types.js';
import type { UserInfo } from '../apiserver/context.js';
import { bootstrapNamespaces, ensureObjects, ensureReadOnly } from './bootstrap.js';
import { nodeJoinBindings } from './bootstrap-tokens.js';
import { nodeAddonsRbac } from './node-addons-rbac.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from '../api/rbac/bootstrap.js';
import { Aggregator } from '../apiserver/aggregator/aggregator.js';

export interface ClusterApiOptions {
  /** the Service cluster-IP range (default 10.43.0.0/16) */
  serviceCIDR?: string;
  /** serve metrics.k8s.io from simulated usage (default true; off = a cluster without metrics-server) */
  metrics?: boolean;
  /** measured usage of the pods and nodes of real kubelets (the scraper's store); the rest stays simulated */
  realUsage?: RealUsageSource;
  /** service-account token signer; without it TokenRequest and token authentication are off */
  tokens?: ServiceAccountTokens;
  /** the PodSecurity plugin's defaults and exemptions (default: privileged, nothing exempt) */
  podSecurity?: PodSecurityConfig;
}

export interface ClusterApi {
  registry: Registry;
  /** serves the custom resources of the stored CRDs (start before serving requests) */
  customResources: CustomResourceController;
  /** calls the configured admission webhooks (start before serving requests) */
  webhooks: WebhookDispatcher;
  /** evaluates ValidatingAdmissionPolicies (start before serving requests) */
  policies: ValidatingPolicies;
  /** the aggregation layer: APIServices, their availability and the proxy (start once CRDs are served) */
  aggregator: Aggregator;
  client: LocalClient;
  /** bearer-token authentication for the HTTPS server */
  authenticateToken(token: string, audiences?: string[]): Promise<UserInfo | undefined>;
  /** releases what the API keeps running (the metrics API's pod cache) */
  stop(): void;
}

export function buildClusterApi(store: Store, opts: ClusterApiOptions = {}): ClusterApi {
  const serviceCIDR = opts.serviceCIDR ?? '10.43.0.0/16';
  // TokenReview asks the same authenticator the API server uses for bearer tokens (bound once the registry exists)
  let authenticateToken: (token: string, audiences?: string[]) => Promise<UserInfo | undefined> = async () => undefined;
  let issuer = '';
  const verifyToken = async (token: string, audiences: string[]) => {
    const user = await authenticateToken(token, audiences.length ? audiences : undefined);
    return user ? { user, audiences: audiences.length ? audiences : [issuer] } : undefined;
  };
  let customResources: CustomResourceController | undefined;
  const crdNamesInUse = (crd: CustomResourceDefinition) => customResources?.namesInUse(crd) ?? [];
  const registry = new Registry(store as never, builtinResources({ verifyToken, crdNamesInUse }), baseDefinitions());
  customResources = new CustomResourceController(registry, (m) => process.stderr.write(`${m}\n`));
  registry.admission.add(namespaceLifecycle(() => registry.mustLookup('', 'v1', 'namespaces')));
  registry.admission.add(priorityClassAdmission());
  registry.admission.add(serviceAccountAdmission(() => registry.mustLookup('', 'v1', 'serviceaccounts')));
  // kube's order: after ServiceAccount; evictions and token requests are actions, with a chain of their own
  const restrictNodes = nodeRestriction({
    pods: () => registry.mustLookup('', 'v1', 'pods'),
    nodes: () => registry.mustLookup('', 'v1', 'nodes'),
    authorizer: () => registry.authorizer,
  });
  registry.admission.add(restrictNodes);
  registry.actionAdmission.add(restrictNodes);
  registry.admission.add(defaultTolerationSeconds());
  registry.admission.add(podPriorityAdmission(() => registry.mustLookup('scheduling.k8s.io', 'v1', 'priorityclasses')));
  // kube's order: DefaultStorageClass, StorageObjectInUseProtection, then (validating) PersistentVolumeClaimResize
  const storageClasses = () => registry.mustLookup('storage.k8s.io', 'v1', 'storageclasses');
  registry.admission.add(defaultStorageClassAdmission(storageClasses));
  registry.admission.add(storageObjectInUseProtectionAdmission());
  registry.admission.add(persistentVolumeClaimResizeAdmission(storageClasses));
  registry.admission.add(csrRequester());
  registry.admission.add(serviceAllocation({ serviceCIDR, nodePortRange: [30000, 32767] }, () => registry.mustLookup('', 'v1', 'services')));
  const enableServiceAccountTokens = (tokens: ServiceAccountTokens) => {
    registry.handleAction('', 'serviceaccounts', 'token', tokenRequestHandler(tokens));
    const serviceAccounts = serviceAccountAuthenticator(tokens, registry);
    const bootstrapTokens = bootstrapTokenAuthenticator(registry);
    // a bootstrap token is not audience-aware: it is for the API server's own audience only (as kube wraps such
    // authenticators)
    authenticateToken = cachedTokenAuthenticator(async (t, audiences) =>
      BOOTSTRAP_TOKEN_PATTERN.test(t) ? (!audiences || audiences.includes(tokens.issuer) ? bootstrapTokens(t) : undefined) : serviceAccounts(t, audiences),
    );
    issuer = tokens.issuer;
  };
  if (opts.tokens) enableServiceAccountTokens(opts.tokens);
  registry.admission.add(limitRangerAdmission({ limitRanges: () => registry.mustLookup('', 'v1', 'limitranges') }));
  // kube's order: the webhooks after the built-in plugins, ResourceQuota last
  const webhooks = new WebhookDispatcher(registry, (m) => process.stderr.write(`${m}\n`));
  const webhookPlugins = webhookAdmission(webhooks);
  const policies = new ValidatingPolicies(registry);
  registry.admission.add(webhookPlugins.mutating);
  // kube checks escalation in the RBAC storage: after the mutating webhooks, before validating admission
  registry.admission.add(rbacEscalation({
    authorizer: () => registry.authorizer,
    lookup: (plural) => registry.mustLookup('rbac.authorization.k8s.io', 'v1', plural),
  }));
  // a validating plugin: it sees what every mutating one made (mutating webhooks too), before the validating ones
  registry.admission.add(podSecurityAdmission({
    namespaces: () => registry.mustLookup('', 'v1', 'namespaces'),
    pods: () => registry.mustLookup('', 'v1', 'pods'),
    config: opts.podSecurity,
  }));
  registry.admission.add(validatingPolicyAdmission(policies));
  registry.admission.add(webhookPlugins.validating);
  // CONNECT (exec, attach, portforward) goes to the webhooks and policies only: the other plugins act on writes
  registry.connectAdmission.add({ name: 'MutatingAdmissionWebhook', admit: async (a) => void (await webhooks.mutate(a)) });
  registry.connectAdmission.add(validatingPolicyAdmission(policies));
  registry.connectAdmission.add(webhookPlugins.validating);
  // last, as in kube: it must see what the mutating plugins added (LimitRanger's defaults)
  registry.admission.add(resourceQuotaAdmission({ quotas: () => registry.mustLookup('', 'v1', 'resourcequotas') }));
  registerPodActions(registry);
  // metrics.k8s.io as metrics-server serves it, from simulated usage (kubectl top, the HPA)
  const metrics = opts.metrics === false ? undefined : metricsResources({ store, realUsage: opts.realUsage });
  for (const d of metrics?.definitions ?? []) registry.add(d);
  const aggregator = new Aggregator(registry, { log: (m) => process.stderr.write(`${m}\n`) });
  return {
    registry,
    customResources,
    webhooks,
    policies,
    aggregator,
    client: new LocalClient(registry),
    authenticateToken: (t, a) => authenticateToken(t, a),
    stop: () => {
      metrics?.stop();
      customResources.stop();
      webhooks.stop();
      policies.stop();
      aggregator.stop();
    },
  };
}

/** The objects every cluster has: system namespaces, built-in PriorityClasses, the kubernetes Service. */
export async function bootstrapClusterObjects(api: ClusterApi, serviceCIDR = '10.43.0.0/16'): Promise<void> {
  // cluster-scoped objects first, in parallel (one group commit); the kubernetes Service needs the default namespace
  await Promise.all([
    bootstrapNamespaces(api.client),
    ensureObjects(api.client, builtinPriorityClasses(), () => 'priorityclasses'),
    ensureReadOnly(api.registry.mustLookup('', 'v1', 'componentstatuses'), componentStatuses()),
    ensureObjects(api.client, [defaultLocalPathStorageClass()], () => 'storageclasses'),
    ensureObjects(api.client, [...bootstrapClusterRoles(), ...nodeAddonsRbac().roles], () => 'clusterroles'),
    ensureObjects(api.client, [...bootstrapClusterRoleBindings(), ...nodeJoinBindings(), ...nodeAddonsRbac().bindings], () => 'clusterrolebindings'),
  ]);
  await ensureObjects(api.client, [kubernetesService(serviceCIDR)], () => 'services');
}
