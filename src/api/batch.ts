// batch/v1: Job (batch-job*.ts) and CronJob (batch-cronjob.ts, batch-cron.ts).
import type { Definitions } from '../machinery/schema.js';
import { cronJobResource } from './batch-cronjob.js';
import { jobResource } from './batch-job.js';
import { batchSchemaDefinitions } from './batch-schema.js';
import type { ResourceDefinition } from './types.js';

export { cronJobResource } from './batch-cronjob.js';
export { jobResource } from './batch-job.js';

/** batch/v1 definitions and the core PodTemplateSpec/PodSpec definitions they embed. */
export const batchDefinitions: Definitions = batchSchemaDefinitions;

export const batchResources: ResourceDefinition[] = [jobResource, cronJobResource];
