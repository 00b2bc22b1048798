// Object-metadata validation every kind shares, with the kind's own name rule.
import type { KObject, ResourceDefinition } from '../../api/types.js';
import type { FieldError } from '../../machinery/errors.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../machinery/object-meta-validation.js';
import { nameIsDNSSubdomain } from '../../machinery/validation.js';

export function validateMeta(obj: KObject, def: ResourceDefinition): FieldError[] {
  const nameFn = def.strategy.validateName ?? nameIsDNSSubdomain;
  return validateObjectMeta(obj.metadata ?? {}, { namespaced: def.namespaced, nameFn });
}

export function validateMetaUpdate(obj: KObject, old: KObject, _def: ResourceDefinition): FieldError[] {
  return validateObjectMetaUpdate(obj.metadata ?? {}, old.metadata ?? {});
}
