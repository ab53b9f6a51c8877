/**
 * The admission chain (spec 1.6): mutating plugins in their fixed order, then (in the store) the type's own
 * validation, then validating plugins in order. The first StatusError thrown ends the request.
 *
 * The plugin lists are worked out once per operation, so a request no plugin handles costs a lookup and an
 * empty loop; a stage returns a promise only when some plugin actually returned one.
 */
import type { AdmissionOperation, AdmissionPlugin, AdmissionRequest } from './types.js';

type Stage = (req: AdmissionRequest) => Promise<void> | void;

const OPERATIONS: readonly AdmissionOperation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

export class AdmissionChain {
  private readonly mutating = new Map<AdmissionOperation, readonly Stage[]>();
  private readonly validating = new Map<AdmissionOperation, readonly Stage[]>();
  /** Per operation, the plugins that may ask for the mutating stage to run again. */
  private readonly reinvokers = new Map<AdmissionOperation, readonly AdmissionPlugin[]>();

  constructor(readonly plugins: readonly AdmissionPlugin[]) {
    for (const op of OPERATIONS) {
      const handling = plugins.filter((p) => p.handles(op));
      this.mutating.set(op, handling.filter((p) => p.admit).map((p) => (req: AdmissionRequest) => p.admit!(req)));
      this.validating.set(op, handling.filter((p) => p.validate).map((p) => (req: AdmissionRequest) => p.validate!(req)));
      this.reinvokers.set(op, handling.filter((p) => p.admit && p.wantsReinvocation));
    }
  }

  /** The plugin names in order (start-up logs, tests). */
  get names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  /** Whether any plugin takes part in `op` at all (the write path skips building a request otherwise). */
  interested(op: AdmissionOperation): boolean {
    return (this.mutating.get(op)?.length ?? 0) > 0 || (this.validating.get(op)?.length ?? 0) > 0;
  }

  /** The mutating stage (run again once when a plugin asks); undefined when nothing was left pending. */
  admit(req: AdmissionRequest): Promise<void> | undefined {
    const stages = this.mutating.get(req.operation);
    const reinvokers = this.reinvokers.get(req.operation);
    const pending = runStages(stages, req);
    if (!reinvokers || reinvokers.length === 0) return pending;
    const again = () => (reinvokers.some((p) => p.wantsReinvocation!(req)) ? runStages(stages, req) : undefined);
    return pending ? pending.then(again) : again();
  }

  /** The validating stage; undefined when it finished without anything pending. */
  validate(req: AdmissionRequest): Promise<void> | undefined {
    return runStages(this.validating.get(req.operation), req);
  }
}

/** Runs stages in order, synchronously until one returns a promise, then awaiting each in turn. */
function runStages(stages: readonly Stage[] | undefined, req: AdmissionRequest): Promise<void> | undefined {
  if (!stages) return undefined;
  for (let i = 0; i < stages.length; i++) {
    const pending = stages[i]!(req);
    if (pending) return finishStages(pending, stages, i + 1, req);
  }
  return undefined;
}

async function finishStages(pending: Promise<void>, stages: readonly Stage[], from: number, req: AdmissionRequest): Promise<void> {
  await pending;
  for (let i = from; i < stages.length; i++) {
    const next = stages[i]!(req);
    if (next) await next;
  }
}
