/**
 * API priority and fairness as one object the filter chain asks: classify a request, then admit it to its
 * priority level. A configuration (the FlowSchemas and PriorityLevelConfigurations as stored) replaces the
 * classifier at once and adjusts the levels in place, so requests already waiting or running keep their
 * seats across the change.
 */
import type { ApiObject } from '../api/types.js';
import { Classifier, compileFlowSchema, flowOf, type CompiledSchema, type FlowRequest, type FlowUser } from './classifier.js';
import { Dispatcher, type Clock, type Level } from './dispatcher.js';
import { divideConcurrency, levelSpecOf } from './levels.js';

export interface FlowControlOptions {
  /** `--max-requests-inflight` + `--max-mutating-requests-inflight`. */
  serverLimit: number;
  /** How long a request may wait in a queue before it gets a 429 (the reference: a quarter of the 60 s request timeout). */
  queueWaitMs?: number;
  clock?: Clock;
  /**
   * The mandatory objects (`exempt` and `catch-all` of each kind). They stand in for any that are missing
   * from a configuration, so every request always has a schema and a level.
   */
  mandatory: { flowSchemas: readonly ApiObject[]; priorityLevels: readonly ApiObject[] };
}

export const DEFAULT_QUEUE_WAIT_MS = 15_000;
const CATCH_ALL = 'catch-all';

export class FlowControl {
  private classifier: Classifier;
  private readonly dispatcher: Dispatcher;
  /** Each schema's level, looked up once per configuration. */
  private levelOfSchema = new Map<CompiledSchema, Level>();
  private fallback: CompiledSchema;

  constructor(private readonly opts: FlowControlOptions) {
    if (!(opts.serverLimit > 0)) throw new Error('priority and fairness needs a server concurrency limit above 0');
    this.dispatcher = new Dispatcher({ serverLimit: opts.serverLimit, queueWaitMs: opts.queueWaitMs ?? DEFAULT_QUEUE_WAIT_MS, ...(opts.clock ? { clock: opts.clock } : {}) });
    this.fallback = compileFlowSchema(mandatoryNamed(opts.mandatory.flowSchemas, CATCH_ALL));
    this.classifier = new Classifier([], () => false, this.fallback);
    this.configure([], []);
  }

  configure(flowSchemas: readonly ApiObject[], priorityLevels: readonly ApiObject[]): void {
    const levels = withMandatory(priorityLevels, this.opts.mandatory.priorityLevels).map(levelSpecOf);
    this.dispatcher.configure(levels, divideConcurrency(this.opts.serverLimit, levels));
    const schemas = withMandatory(flowSchemas, this.opts.mandatory.flowSchemas);
    const catchAll = schemas.find((s) => s.metadata?.name === CATCH_ALL);
    this.fallback = compileFlowSchema(catchAll ?? mandatoryNamed(this.opts.mandatory.flowSchemas, CATCH_ALL));
    this.classifier = new Classifier(schemas, (name) => this.dispatcher.level(name) !== undefined, this.fallback);
    this.levelOfSchema = new Map();
  }

  /** The FlowSchema a request matches (see levelOf for its level). */
  classify(user: FlowUser, req: FlowRequest): CompiledSchema {
    return this.classifier.classify(user, req);
  }

  /** The schema's level; `catch-all` when a schema outlived its level (the classifier skips such schemas). */
  levelOf(schema: CompiledSchema): Level {
    let level = this.levelOfSchema.get(schema);
    if (!level) {
      level = this.dispatcher.level(schema.priorityLevel) ?? (this.dispatcher.level(CATCH_ALL) as Level);
      this.levelOfSchema.set(schema, level);
    }
    return level;
  }

  /** A seat at `level` for this request's flow: the level (release it when done), a promise of it, or a 429. */
  admit(schema: CompiledSchema, level: Level, user: FlowUser, req: FlowRequest): Level | Promise<Level> {
    if (this.dispatcher.tryAcquire(level)) return level;
    // The flow matters only when the request has to queue: a free seat needs no hashing.
    return this.dispatcher.wait(level, `${schema.name}\u0000${flowOf(schema, user, req)}`);
  }

  snapshot(): ReturnType<Dispatcher['snapshot']> {
    return this.dispatcher.snapshot();
  }
}

function mandatoryNamed(list: readonly ApiObject[], name: string): ApiObject {
  const o = list.find((x) => x.metadata?.name === name);
  if (!o) throw new Error(`the mandatory flow-control object ${name} is missing`);
  return o;
}

/** The configured objects plus every mandatory one whose name none of them has. */
function withMandatory(given: readonly ApiObject[], mandatory: readonly ApiObject[]): ApiObject[] {
  const names = new Set(given.map((o) => o.metadata?.name));
  return [...given, ...mandatory.filter((m) => !names.has(m.metadata?.name))];
}
