/**
 * The CEL `authorizer` variable for admission (policies and webhook match conditions): checks are made
 * as the request's user through the server's authorizer, and answered at most once per admission
 * request, whichever plugin or expression asks.
 */
import { AuthorizationAnswers, authorizerValue, type AskAuthorizer, type AuthorizerValue } from '../cel/index.js';
import type { AdmissionDeps, AdmissionRequest, GroupVersionResource } from './types.js';

const answersOfRequest = new WeakMap<AdmissionRequest, AuthorizationAnswers>();

const noAuthorizer: AskAuthorizer = () => Promise.reject(new Error('no authorizer is available to admission'));

/** The answers cache of `req` (made on first use; kept only as long as the request object lives). */
export function answersFor(req: AdmissionRequest, deps: AdmissionDeps): AuthorizationAnswers {
  let answers = answersOfRequest.get(req);
  if (!answers) {
    const decide = deps.authorizeDecision;
    answers = new AuthorizationAnswers(decide ? (user, question) => decide(user, question) : noAuthorizer);
    answersOfRequest.set(req, answers);
  }
  return answers;
}

/**
 * The `authorizer` value for `req`, with `authorizer.requestResource` preset to `resource` (the resource
 * the expression sees the request as) and the request's subresource, namespace and name.
 */
export function requestAuthorizer(req: AdmissionRequest, answers: AuthorizationAnswers, resource: GroupVersionResource, subResource: string): AuthorizerValue {
  return authorizerValue(answers, req.user, { group: resource.group, resource: resource.resource, subresource: subResource, namespace: req.namespace, name: req.name });
}
