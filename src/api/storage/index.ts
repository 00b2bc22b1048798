// storage.k8s.io/v1 kinds served here: StorageClass, VolumeAttachment, CSIDriver, CSINode (one module each).
import type { Definitions } from '../../machinery/schema.js';
import { csiDriverDefinitions, csiDriverResource } from './csidriver.js';
import { csiNodeDefinitions, csiNodeResource } from './csinode.js';
import { storageClassDefinitions, storageClassResource } from './storageclass.js';
import { volumeAttachmentDefinitions, volumeAttachmentResource } from './volumeattachment.js';
import type { ResourceDefinition } from '../types.js';

export {
  ANNOTATION_BETA_IS_DEFAULT_STORAGE_CLASS,
  ANNOTATION_IS_DEFAULT_STORAGE_CLASS,
  isDefaultStorageClass,
  storageClassResource,
} from './storageclass.js';
export { volumeAttachmentResource } from './volumeattachment.js';
export { csiDriverResource } from './csidriver.js';
export { csiNodeResource } from './csinode.js';

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
