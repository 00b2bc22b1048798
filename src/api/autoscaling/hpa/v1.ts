// autoscaling/v1 HorizontalPodAutoscaler: a view of the stored autoscaling/v2 objects. Kubernetes decodes a v1
// body (v1 defaults), converts it to the internal type and runs the one strategy there; here every strategy step
// converts to the v2 form, runs the v2 strategy and converts back, so both versions share defaults, validation
// (with the internal field paths) and status handling.
import { hpaV1ToV2, hpaV2ToV1, METRIC_STATUSES_ANNOTATION } from './convert.js';
import { defaultHPAv2, hpaColumns, hpaStrategy, type HPA } from './resource.js';
import { autoscalingV1Definitions, H1 } from './schema.js';
import { defineResource, type KObject } from '../../types.js';

/** The stored form of a v1 object, with the defaults decoding it back would apply. */
export function hpaToStored(v1: KObject): KObject {
  const v2 = hpaV1ToV2(v1) as HPA;
  defaultHPAv2(v2);
  return v2;
}

export const hpaFromStored = (v2: KObject): KObject => hpaV2ToV1(v2);

/** Replaces the contents of `target` with `source` (strategies mutate the object they are given). */
function replace(target: KObject, source: KObject): void {
  for (const k of Object.keys(target)) delete target[k];
  Object.assign(target, source);
}

/** Runs a v2 strategy step on the converted object and writes the result back in v1 form. */
function viaV2(o: KObject, step: (v2: HPA) => void): void {
  const v2 = hpaToStored(o) as HPA;
  step(v2);
  replace(o, hpaFromStored(v2));
}

export const hpaV1Resource = defineResource<KObject>({
  group: 'autoscaling',
  version: 'v1',
  kind: 'HorizontalPodAutoscaler',
  plural: 'horizontalpodautoscalers',
  singular: 'horizontalpodautoscaler',
  shortNames: ['hpa'],
  categories: ['all'],
  namespaced: true,
  schemaRef: H1 + 'HorizontalPodAutoscaler',
  definitions: autoscalingV1Definitions,
  subresources: { status: true },
  columns: hpaColumns<KObject>((o) => hpaToStored(o) as HPA),
  strategy: {
    // SetDefaults_HorizontalPodAutoscaler (v1: minReplicas 1); the round trip through v2 gives the object the
    // shape a later read returns (e.g. the explicit 80% CPU target).
    defaults(o) {
      const spec = ((o.spec as Record<string, unknown> | undefined) ??= {});
      if (spec.minReplicas === undefined || spec.minReplicas === null) spec.minReplicas = 1;
      viaV2(o, () => {});
    },
    prepareForCreate: (o) => viaV2(o, (v2) => hpaStrategy.prepareForCreate!(v2)),
    prepareForUpdate: (o, old) => viaV2(o, (v2) => hpaStrategy.prepareForUpdate!(v2, hpaToStored(old) as HPA)),
    validate: (o) => hpaStrategy.validate!(hpaToStored(o) as HPA),
    validateUpdate: (o, old) => hpaStrategy.validateUpdate!(hpaToStored(o) as HPA, hpaToStored(old) as HPA),
    // A v1 status write carries the CPU utilization in status; the stored current metrics annotation (from the
    // old object) must not override it when the object is converted for storage. Conditions, which v1 can only
    // carry in the annotation, are kept from the stored object.
    prepareForStatusUpdate(o) {
      const ann = o.metadata.annotations;
      if (ann && METRIC_STATUSES_ANNOTATION in ann) {
        delete ann[METRIC_STATUSES_ANNOTATION];
        if (Object.keys(ann).length === 0) delete o.metadata.annotations;
      }
    },
    validateStatusUpdate: (o) => hpaStrategy.validateStatusUpdate!(hpaToStored(o) as HPA, hpaToStored(o) as HPA),
    allowCreateOnUpdate: false,
  },
  storedAs: { group: 'autoscaling', plural: 'horizontalpodautoscalers', toStored: hpaToStored, fromStored: hpaFromStored },
});
