// batch/v1: Job (job/) and CronJob (cronjob/).
import type { Definitions } from '../../machinery/schema.js';
import { cronJobResource } from './cronjob/resource.js';
import { jobResource } from './job/resource.js';
import { batchSchemaDefinitions } from './schema.js';
import type { ResourceDefinition } from '../types.js';

export { cronJobResource } from './cronjob/resource.js';
export { jobResource } from './job/resource.js';

/** batch/v1 definitions and the core PodTemplateSpec/PodSpec definitions they embed. */
export const batchDefinitions: Definitions = batchSchemaDefinitions;

export const batchResources: ResourceDefinition[] = [jobResource, cronJobResource];
