// Pods for the Pod Security tests: a pod that passes restricted, and ways to break it.
import type { PodMeta, PodSpecLike } from '../../../../../src/apiserver/admission/pod-security/pod-view.js';

export const restrictedContainer = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  image: 'nginx',
  securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, ...extra },
});

/** Passes restricted:latest. */
export const restrictedSpec = (over: Partial<PodSpecLike> = {}): PodSpecLike => ({
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [restrictedContainer('c')],
  ...over,
});

/** The restricted pod with one container's securityContext fields replaced. */
export const withContainerSc = (sc: Record<string, unknown>, name = 'c'): PodSpecLike =>
  restrictedSpec({ containers: [restrictedContainer(name, sc)] });

export const withPodSc = (sc: Record<string, unknown>): PodSpecLike =>
  restrictedSpec({ securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' }, ...sc } });

export const meta = (annotations?: Record<string, string>): PodMeta => ({ name: 'p', annotations });
