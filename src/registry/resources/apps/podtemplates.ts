/** core/v1 PodTemplate: a stored pod template other objects can refer to. */
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { column, pathValue } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { defaultPodTemplate } from '../pods/template.js';
import { referenceType } from '../reference.js';
import { formatLabelMap } from '../../../selectors/index.js';
import { containerColumns } from './workload-table.js';
import { semanticallyEqual, validateTemplateSpec } from './workload-validation.js';

/** Any restart policy is fine here: nothing runs the template directly. */
export const validatePodTemplateObject = (o: ApiObject): FieldError[] => validateTemplateSpec(o.template, 'template');

/** A PodTemplate has no spec; its generation follows `template` instead. */
function bumpOnTemplateChange(o: ApiObject, old: ApiObject): void {
  defaultPodTemplate(o.template);
  if (semanticallyEqual(o.template, old.template)) return;
  const gen = typeof old.metadata?.generation === 'number' ? old.metadata.generation : 0;
  o.metadata = { ...(o.metadata ?? {}), generation: gen + 1 };
}

export const podtemplates: ResourceType = referenceType('', 'v1', 'podtemplates', {
  tableColumns: [
    ...containerColumns('template.spec.containers', 0),
    column('Pod Labels', 'string', 'Labels of the pods made from this template.', (o) => formatLabelMap(pathValue(o, 'template.metadata.labels'))),
  ],
  strategy: {
    tracksGeneration: true,
    prepareForCreate: (o) => defaultPodTemplate(o.template),
    prepareForUpdate: bumpOnTemplateChange,
    validate: validatePodTemplateObject,
  },
});
