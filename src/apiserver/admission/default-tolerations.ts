// DefaultTolerationSeconds admission (plugin/pkg/admission/defaulttolerationseconds): a new pod that does not
// tolerate node.kubernetes.io/not-ready or /unreachable (NoExecute) tolerates each for 300 s, so the taint-based
// eviction of the node lifecycle controller waits five minutes before evicting it.
import type { Pod } from '../../api/core/pod/types.js';
import { addDefaultTolerations } from '../../api/core/pod/admission.js';
import type { AdmissionPlugin } from './chain.js';

export function defaultTolerationSeconds(): AdmissionPlugin {
  return {
    name: 'DefaultTolerationSeconds',
    admit({ store, operation, object }) {
      if (operation !== 'CREATE' || store.def.group !== '' || store.def.plural !== 'pods' || object.kind !== 'Pod') return;
      addDefaultTolerations(((object as Pod).spec ??= {}));
    },
  };
}
