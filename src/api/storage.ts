// storage.k8s.io/v1 kinds served here: StorageClass, VolumeAttachment, CSIDriver, CSINode (one module each).
import type { Definitions } from '../machinery/schema.js';
import { csiDriverDefinitions, csiDriverResource } from './storage-csidriver.js';
import { csiNodeDefinitions, csiNodeResource } from './storage-csinode.js';
import { storageClassDefinitions, storageClassResource } from './storage-storageclass.js';
import { volumeAttachmentDefinitions, volumeAttachmentResource } from './storage-volumeattachment.js';
import type { ResourceDefinition } from './types.js';

export {
  ANNOTATION_BETA_IS_DEFAULT_STORAGE_CLASS,
  ANNOTATION_IS_DEFAULT_STORAGE_CLASS,
  isDefaultStorageClass,
  storageClassResource,
} from './storage-storageclass.js';
export { volumeAttachmentResource } from './storage-volumeattachment.js';
export { csiDriverResource } from './storage-csidriver.js';
export { csiNodeResource } from './storage-csinode.js';

/**
 * Every definition the storage kinds need besides meta's: includes core TopologySelectorTerm(LabelRequirement).
 * VolumeAttachment's inlineVolumeSpec refers to core PersistentVolumeSpec, which the core PV definitions provide.
 */
export const storageDefinitions: Definitions = {
  ...storageClassDefinitions,
  ...volumeAttachmentDefinitions,
  ...csiDriverDefinitions,
  ...csiNodeDefinitions,
};

export const storageResources: ResourceDefinition[] = [storageClassResource, volumeAttachmentResource, csiDriverResource, csiNodeResource];
