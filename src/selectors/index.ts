/** Label and field selectors (spec 4.2): parsing, matching and the helpers handlers and request info need. */
export {
  everything,
  isEmpty,
  labelKeyErrors,
  labelSelectorFromObject,
  labelValueErrors,
  MAX_SELECTOR_REQUIREMENTS,
  MAX_SELECTOR_VALUES,
  matchesLabels,
  nothing,
  parseLabelSelector,
} from './label-selector.js';
export type {
  LabelOperator,
  LabelRequirement,
  LabelSelector,
  LabelSelectorObject,
  LabelSelectorRequirementObject,
} from './label-selector.js';
export {
  checkSupportedFields,
  escapeFieldValue,
  exactName,
  matchesFields,
  parseFieldSelector,
  requirements,
} from './field-selector.js';
export type { FieldRequirement, FieldSelector } from './field-selector.js';
export { formatLabelMap, formatLabelSelector, labelMapString, labelSelectorString } from './format.js';
