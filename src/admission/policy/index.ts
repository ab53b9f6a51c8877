/** ValidatingAdmissionPolicy (admissionregistration/v1): CEL policies applied through their bindings. */
export { POLICY_PLUGIN_NAME, validatingAdmissionPolicyPlugin } from './plugin.js';
export { BUDGET_EXCEEDED, POLICY_VARIABLES } from './cel.js';
export { PolicyTypeChecker, type ExpressionWarning, type TypeCheckSchemas } from './typecheck.js';
