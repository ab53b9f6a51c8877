/** Public surface of the validation helpers: pure functions returning problems, never throwing. */
export {
  isDNS1123Label,
  isDNS1123Subdomain,
  isPathSegmentName,
  isPathSegmentPrefix,
  isQualifiedName,
  isLabelValue,
  isCIdentifier,
  isValidPortNum,
  isIPv4,
  isIP,
  validateName,
  regexError,
  maxLenError,
  emptyError,
  inclusiveRangeError,
  DNS1123_LABEL_MAX_LENGTH,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  QUALIFIED_NAME_MAX_LENGTH,
  LABEL_VALUE_MAX_LENGTH,
  type NameRule,
} from './names.js';
export {
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateLabels,
  validateAnnotations,
  validateFinalizers,
  validateOwnerReferences,
  TOTAL_ANNOTATION_SIZE_LIMIT,
  type ObjectMetaOptions,
} from './metadata.js';
export { optionalBoolean } from './values.js';
export { validateLabelSelector } from './label-selector.js';
