// CertificateSigningRequest requester: spec.username, uid, groups and extra come from the authenticated user.
import { fillRequester } from '../../api/certificates/index.js';
import type { AdmissionPlugin } from './chain.js';

export function csrRequester(): AdmissionPlugin {
  return {
    name: 'CertificateSigningRequestRequester',
    admit({ ctx, store, operation, object }) {
      if (operation !== 'CREATE' || store.def.group !== 'certificates.k8s.io' || store.def.plural !== 'certificatesigningrequests') return;
      fillRequester(object as Parameters<typeof fillRequester>[0], ctx.user);
    },
  };
}
