/**
 * CEL, shared by everything that evaluates expressions from configuration or stored objects (admission
 * policies, webhook match conditions, authentication claim rules, authorization match conditions):
 * environments with declared variables, compilation with a one-line reason, JSON-to-CEL values, an
 * evaluation budget, the reference's all-conditions-must-match rule, and the reference's `authorizer`
 * library with its per-request answers.
 */
export { celEnvironment, compileCel, firstLine, type CelEnvironment, type CompiledCel, type ResultType } from './compile.js';
export { BUDGET_EXCEEDED, DEFAULT_ITERATION_BUDGET, DEFAULT_TIME_BUDGET_MS, EvaluationBudget } from './budget.js';
export { celScalarType, celValue } from './value.js';
export { evaluateMatchConditions, type MatchCondition, type MatchOutcome } from './conditions.js';
export { AuthorizationAnswers, type AskAuthorizer, type AuthzDecision, type AuthzQuestion, type AuthzUser } from './authorizer-answers.js';
export { authorizerProblem, authorizerValue, registerAuthorizerLibrary, usesAuthorizer, type AuthorizerValue } from './authorizer-library.js';
