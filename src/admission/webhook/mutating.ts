/**
 * The MutatingAdmissionWebhook plugin: webhooks called one after another, each seeing the object as the
 * previous ones left it. Reinvocation (reinvocationPolicy IfNeeded): when a webhook's patch, or a later
 * plugin, changed the object after an IfNeeded webhook saw it, the plugin asks the chain for a second
 * mutating pass (`wantsReinvocation`), in which only those webhooks are called again, once.
 */
import { WEBHOOK_FAILED_OPEN_MUTATING_PREFIX, WEBHOOK_MUTATION_ANNOTATION_PREFIX } from '../../api/naming.js';
import { internalError } from '../../errors/index.js';
import type { AdmissionDeps, AdmissionPlugin, AdmissionRequest } from '../types.js';
import { applyWebhookPatch, CallError, callWebhook, checkDryRun, denial } from './call.js';
import { withHooks, type CompiledWebhook, type ConfigurationSource } from './compile.js';
import { invocationFor, RequestFacts } from './match.js';
import { isExemptResource } from './rules.js';

/** What one request's first pass leaves for the second. */
class ReinvocationState {
  /** IfNeeded webhooks called since the object last changed under them. */
  invoked = new Set<string>();
  /** Webhooks to call again in the second pass. */
  again = new Set<string>();
  /** A webhook changed the object: the chain should run a second pass. */
  webhookChanged = false;
  /** The object as the last webhook left it (JSON), kept only while some IfNeeded webhook was called. */
  lastOutput: string | undefined;
  round = 0;

  objectChangedSince(obj: unknown): boolean {
    return this.lastOutput !== undefined && JSON.stringify(obj ?? null) !== this.lastOutput;
  }
}

export const MUTATING_PLUGIN_NAME = 'MutatingAdmissionWebhook';
const ALL_OPERATIONS = () => true;

export function createMutatingPlugin(deps: AdmissionDeps, source: ConfigurationSource): AdmissionPlugin {
  const states = new WeakMap<AdmissionRequest, ReinvocationState>();

  async function callOne(hook: CompiledWebhook, index: number, req: AdmissionRequest, facts: RequestFacts, st: ReinvocationState): Promise<void> {
    const inv = await invocationFor(hook, facts);
    if (!inv) return;
    // A webhook skipped in the first pass is never called for the first time in the second.
    if (st.round > 0 && !st.again.has(hook.id)) return;
    checkDryRun(hook, req);
    let changed = false;
    let failure: unknown;
    try {
      const answer = await callWebhook(hook, req, inv, deps, true);
      if (!answer.allowed) throw denial(hook.name, answer.status);
      if (answer.patch !== undefined) {
        const applied = applyWebhookPatch(hook.name, req, answer.patch, inv.converted);
        changed = applied instanceof Promise ? await applied : applied;
      }
      req.annotate(`${WEBHOOK_MUTATION_ANNOTATION_PREFIX}/round_${st.round}_index_${index}`, JSON.stringify({ configuration: hook.configurationName, webhook: hook.name, mutated: changed }));
    } catch (e) {
      failure = e;
    }
    if (changed) {
      // Everything called before this change saw an older object.
      for (const id of st.invoked) st.again.add(id);
      st.invoked.clear();
      st.webhookChanged = true;
    }
    if (hook.reinvokeIfNeeded) st.invoked.add(hook.id);
    if (failure === undefined) return;
    if (failure instanceof CallError) {
      if (!hook.failOpen) throw internalError(failure.message);
      req.annotate(`${WEBHOOK_FAILED_OPEN_MUTATING_PREFIX}/round_${st.round}_index_${index}`, hook.name);
      deps.log(`webhook failing open: ${failure.message}`);
      return;
    }
    throw failure;
  }

  async function run(hooks: readonly CompiledWebhook[], req: AdmissionRequest): Promise<void> {
    let st = states.get(req);
    if (st) {
      st.round = 1;
      // Another plugin changed the object after the webhooks: every IfNeeded webhook called so far is due again.
      if (st.objectChangedSince(req.object)) for (const id of st.invoked) st.again.add(id);
    } else {
      st = new ReinvocationState();
      states.set(req, st);
    }
    const facts = new RequestFacts(req, deps);
    try {
      for (let i = 0; i < hooks.length; i++) await callOne(hooks[i] as CompiledWebhook, i, req, facts, st);
    } finally {
      st.lastOutput = st.invoked.size > 0 ? JSON.stringify(req.object ?? null) : undefined;
    }
  }

  return {
    name: MUTATING_PLUGIN_NAME,
    handles: ALL_OPERATIONS,
    admit(req) {
      if (isExemptResource(req.resource)) return undefined;
      return withHooks(source, (hooks) => run(hooks, req));
    },
    wantsReinvocation(req) {
      const st = states.get(req);
      if (!st || st.round > 0) return false;
      return st.webhookChanged || (st.invoked.size > 0 && st.objectChangedSince(req.object));
    },
  };
}
