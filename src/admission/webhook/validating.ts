/**
 * The ValidatingAdmissionWebhook plugin: every webhook that applies is called at once; the request
 * fails with the first failure in webhook order (a denial, a dry-run refusal, or a call error under
 * failurePolicy Fail) once all have answered.
 */
import { WEBHOOK_FAILED_OPEN_VALIDATING_PREFIX } from '../../api/naming.js';
import { internalError } from '../../errors/index.js';
import type { AdmissionDeps, AdmissionPlugin, AdmissionRequest } from '../types.js';
import { CallError, callWebhook, checkDryRun, denial } from './call.js';
import { withHooks, type CompiledWebhook, type ConfigurationSource } from './compile.js';
import { invocationFor, RequestFacts } from './match.js';
import type { Invocation } from './review.js';
import { isExemptResource } from './rules.js';

export const VALIDATING_PLUGIN_NAME = 'ValidatingAdmissionWebhook';

async function callOne(hook: CompiledWebhook, inv: Invocation, index: number, req: AdmissionRequest, deps: AdmissionDeps, shared: Map<string, string>): Promise<unknown> {
  try {
    checkDryRun(hook, req);
    const answer = await callWebhook(hook, req, inv, deps, false, shared);
    return answer.allowed ? undefined : denial(hook.name, answer.status);
  } catch (e) {
    if (!(e instanceof CallError)) return e;
    if (!hook.failOpen) return internalError(e.message);
    req.annotate(`${WEBHOOK_FAILED_OPEN_VALIDATING_PREFIX}/round_0_index_${index}`, hook.name);
    deps.log(`webhook failing open: ${e.message}`);
    return undefined;
  }
}

async function validateWith(hooks: readonly CompiledWebhook[], req: AdmissionRequest, deps: AdmissionDeps): Promise<void> {
  const facts = new RequestFacts(req, deps);
  const relevant: [CompiledWebhook, Invocation][] = [];
  for (const hook of hooks) {
    const inv = await invocationFor(hook, facts);
    if (inv) relevant.push([hook, inv]);
  }
  if (relevant.length === 0) return;
  // The object cannot change while validating webhooks run: one review text serves them all.
  const shared = new Map<string, string>();
  const outcomes = await Promise.all(relevant.map(([hook, inv], i) => callOne(hook, inv, i, req, deps, shared)));
  const failure = outcomes.find((o) => o !== undefined);
  if (failure !== undefined) throw failure;
}

export function createValidatingPlugin(deps: AdmissionDeps, source: ConfigurationSource): AdmissionPlugin {
  return {
    name: VALIDATING_PLUGIN_NAME,
    handles: () => true,
    validate(req) {
      if (isExemptResource(req.resource)) return undefined;
      return withHooks(source, (hooks) => validateWith(hooks, req, deps));
    },
  };
}
