// core/v1 PodTemplate: pkg/registry/core/podtemplate/strategy.go (generation 1 on create, bumped on template
// changes; gated template fields dropped), ValidatePodTemplate(Update) and printPodTemplate (NAME CONTAINERS
// IMAGES POD LABELS, no AGE).
import { s, type Definitions } from '../../../machinery/schema.js';
import { CORE } from '../common.js';
import { containerCells, CONTAINERS_DOC, defaultPodTemplateSpec, dropDisabledTemplateFields, IMAGES_DOC, podTemplateSpecDefinitions, type PodTemplateSpec } from './spec.js';
import { validatePodTemplateSpec } from './validation.js';
import { formatLabels, nameColumn } from '../../format.js';
import { kindHeader, listDefinition } from '../../meta.js';
import { defineResource, type KObject } from '../../types.js';

export interface PodTemplate extends KObject {
  template?: PodTemplateSpec;
}

export const podTemplateDefinitions: Definitions = {
  ...podTemplateSpecDefinitions,
  [`${CORE}PodTemplate`]: s.obj(
    {
      ...kindHeader(),
      template: s.ref(`${CORE}PodTemplateSpec`, 'Template of the pods created from this pod template.', { default: {} }),
    },
    { description: 'PodTemplate is a named, reusable template for creating pods.' },
  ),
  [`${CORE}PodTemplateList`]: listDefinition(`${CORE}PodTemplate`, 'PodTemplateList is a list of PodTemplates.', 'List of pod templates.'),
};

export const podTemplateResource = defineResource<PodTemplate>({
  group: '',
  version: 'v1',
  kind: 'PodTemplate',
  plural: 'podtemplates',
  singular: 'podtemplate',
  namespaced: true,
  schemaRef: `${CORE}PodTemplate`,
  definitions: podTemplateDefinitions,
  // The strategy sets generation 1 on create and bumps it whenever the template changes.
  hasGeneration: true,
  columns: [
    nameColumn(),
    { name: 'Containers', type: 'string', description: CONTAINERS_DOC, cell: (o) => containerCells(o.template?.spec?.containers).names },
    { name: 'Images', type: 'string', description: IMAGES_DOC, cell: (o) => containerCells(o.template?.spec?.containers).images },
    { name: 'Pod Labels', type: 'string', description: 'The labels for the pod template.', cell: (o) => formatLabels(o.template?.metadata?.labels) },
  ],
  strategy: {
    // The template is a struct in Go, so it is always decoded and defaulted, even when the body omits it.
    defaults: (pt) => defaultPodTemplateSpec((pt.template ??= {})),
    prepareForCreate: (pt) => dropDisabledTemplateFields(pt.template),
    prepareForUpdate: (pt, old) => dropDisabledTemplateFields(pt.template, old.template),
    validate: (pt) => validatePodTemplateSpec(pt.template ?? {}, 'template'),
    allowCreateOnUpdate: false,
  },
});
