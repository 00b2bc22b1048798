// autoscaling: HorizontalPodAutoscaler served as autoscaling/v2 (stored) and autoscaling/v1 (converted view).
import type { Definitions } from '../../machinery/schema.js';
import { hpaV1Resource } from './hpa/v1.js';
import { hpaV2Resource } from './hpa/resource.js';
import { autoscalingV1Definitions, autoscalingV2Definitions } from './hpa/schema.js';
import type { ResourceDefinition } from '../types.js';

export { hpaV1Resource } from './hpa/v1.js';
export { hpaV2Resource } from './hpa/resource.js';
export { hpaV1ToV2, hpaV2ToV1 } from './hpa/convert.js';

export const autoscalingDefinitions: Definitions = { ...autoscalingV2Definitions, ...autoscalingV1Definitions };

/** v2 first: it is the preferred and the storage version. */
export const autoscalingResources: ResourceDefinition[] = [hpaV2Resource, hpaV1Resource];
