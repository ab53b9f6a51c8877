/**
 * Defaults of admissionregistration/v1 objects, as the reference applies them when it decodes a write:
 * webhooks fail closed with equivalent matching, a 10s timeout and match-everything selectors; rules
 * cover every scope; services listen on 443; policies fail closed.
 */
import type { ApiObject } from '../../../api/types.js';
import { isRec, type Rec } from '../events/fields.js';

export const DEFAULT_TIMEOUT_SECONDS = 10;
export const DEFAULT_SERVICE_PORT = 443;

const unset = (v: unknown) => v === undefined || v === null;
const setIfUnset = (o: Rec, key: string, value: unknown) => {
  if (unset(o[key])) o[key] = value;
};
const records = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isRec) : []);

function defaultRules(rules: unknown): void {
  for (const rule of records(rules)) setIfUnset(rule, 'scope', '*');
}

/** What a webhook and a policy's match block share: match policy and selectors. */
function defaultMatching(o: Rec): void {
  setIfUnset(o, 'matchPolicy', 'Equivalent');
  setIfUnset(o, 'namespaceSelector', {});
  setIfUnset(o, 'objectSelector', {});
}

function defaultWebhook(hook: Rec, mutating: boolean): void {
  setIfUnset(hook, 'failurePolicy', 'Fail');
  defaultMatching(hook);
  setIfUnset(hook, 'timeoutSeconds', DEFAULT_TIMEOUT_SECONDS);
  if (mutating) setIfUnset(hook, 'reinvocationPolicy', 'Never');
  defaultRules(hook.rules);
  const cc = hook.clientConfig;
  if (isRec(cc) && isRec(cc.service)) setIfUnset(cc.service, 'port', DEFAULT_SERVICE_PORT);
}

export function defaultWebhookConfiguration(o: ApiObject, mutating: boolean): void {
  for (const hook of records(o.webhooks)) defaultWebhook(hook, mutating);
}

function defaultMatchResources(m: unknown): void {
  if (!isRec(m)) return;
  defaultMatching(m);
  defaultRules(m.resourceRules);
  defaultRules(m.excludeResourceRules);
}

export function defaultPolicy(o: ApiObject): void {
  const spec = isRec(o.spec) ? o.spec : unset(o.spec) ? (o.spec = {}) : undefined;
  if (!spec) return;
  setIfUnset(spec, 'failurePolicy', 'Fail');
  defaultMatchResources(spec.matchConstraints);
}

export function defaultPolicyBinding(o: ApiObject): void {
  if (isRec(o.spec)) defaultMatchResources(o.spec.matchResources);
}
