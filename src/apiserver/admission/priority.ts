// Priority admission (plugin/pkg/admission/priority): at most one PriorityClass may be the global default; for
// pods, resolve spec.priorityClassName to spec.priority and preemptionPolicy, apply the globalDefault PriorityClass
// to pods that name none, refuse unknown classes. The system classes and "no class, no default" are already resolved
// at create (applyDefaultPriority).
import { errors } from '../../machinery/errors.js';
import { SYSTEM_PRIORITY_CLASSES } from '../../api/core/pod/admission.js';
import type { KObject } from '../../api/types.js';
import { priorityClassForbidden, PRIORITY_CLASSES_GR, type PriorityClass } from '../../api/scheduling/priorityclass.js';
import type { AdmissionPlugin } from './chain.js';
import { AdmissionCache } from './cache.js';
import { listObjects } from '../registry/list.js';
import type { ResourceStore } from '../registry/store.js';


interface PodSpecPriority {
  priorityClassName?: string;
  priority?: number | null;
  preemptionPolicy?: string;
}

export function podPriorityAdmission(priorityClasses: () => ResourceStore): AdmissionPlugin {
  const cache = new AdmissionCache(priorityClasses);
  return {
    name: 'Priority',
    admit({ store, operation, object }) {
      if (operation !== 'CREATE' || store.def.group !== '' || store.def.plural !== 'pods') return;
      const spec = ((object as { spec?: PodSpecPriority }).spec ??= {});
      const name = spec.priorityClassName ?? '';
      if (name in SYSTEM_PRIORITY_CLASSES) return;
      const cached = cache.inNamespace('');
      // with the classes in memory the pod is decided without a promise; a named class the cache lacks is read
      if (cached && (!name || cached.has(name))) return decide(name ? (cached.get(name) as PriorityClass) : globalDefault(cached.values()));
      return resolve(priorityClasses(), name).then(decide);
      function decide(pc: PriorityClass | undefined): void {
        const podName = object.metadata.name ?? object.metadata.generateName ?? '';
        if (name && !pc) throw errors.forbidden(store.gr, podName, `pods "${podName}" is forbidden: no PriorityClass with name ${name} was found`);
        if (!pc) return;
        const value = pc.value ?? 0;
        // the defaulted 0 of a pod without a class is replaced by the global default's value
        if (spec.priority !== undefined && spec.priority !== null && spec.priority !== value && !(name === '' && spec.priority === 0)) {
          throw errors.forbidden(
            store.gr,
            podName,
            `pods "${podName}" is forbidden: the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`,
          );
        }
        spec.priorityClassName = pc.metadata.name;
        spec.priority = value;
        spec.preemptionPolicy = pc.preemptionPolicy ?? 'PreemptLowerPriority';
      }
    },
  };
}

async function resolve(store: ResourceStore, name: string): Promise<PriorityClass | undefined> {
  if (name) {
    try {
      return (await store.get('', name)) as PriorityClass;
    } catch (e) {
      if ((e as { code?: number }).code === 404) return undefined;
      throw e;
    }
  }
  return globalDefault((await listObjects(store, '', {})).items);
}

/** The global default with the lowest value wins if several exist (getDefaultPriorityClass); ties: the first name. */
function globalDefault(classes: Iterable<KObject>): PriorityClass | undefined {
  let best: PriorityClass | undefined;
  for (const o of classes) {
    const pc = o as PriorityClass;
    if (pc.globalDefault !== true) continue;
    const d = best ? (pc.value ?? 0) - (best.value ?? 0) : -1;
    if (d < 0 || (d === 0 && (pc.metadata.name ?? '') < (best!.metadata.name ?? ''))) best = pc;
  }
  return best;
}

/** The Priority admission plugin's PriorityClass rule: at most one class may be the global default. */
export function priorityClassAdmission(): AdmissionPlugin {
  return {
    name: 'Priority',
    async admit({ store, operation, object }) {
      if (store.def.group !== PRIORITY_CLASSES_GR.group || store.def.plural !== PRIORITY_CLASSES_GR.resource) return;
      if (operation !== 'CREATE' && operation !== 'UPDATE') return;
      const pc = object as PriorityClass;
      if (pc.globalDefault !== true) return;
      const existing = (await listObjects(store, '', {})).items.find((o) => (o as PriorityClass).globalDefault === true);
      if (existing && (operation === 'CREATE' || existing.metadata.name !== pc.metadata.name)) {
        throw priorityClassForbidden(pc.metadata.name ?? '', `PriorityClass ${existing.metadata.name} is already marked as default. Only one default can exist`);
      }
    },
  };
}
