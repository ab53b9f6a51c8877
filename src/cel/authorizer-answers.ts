/**
 * Authorization answers for CEL's `authorizer` library. Asking the authorizer is asynchronous, CEL
 * evaluation is not, so an evaluation runs against a cache of answers: an unanswered check is recorded
 * and fails that run with a provisional error; afterwards the recorded checks are asked (in parallel,
 * a few at a time) and the evaluation runs again, until a run records nothing new. Only such a run's
 * result is returned, so every answer it used is a real one. The last allowed round treats a miss as a
 * plain evaluation error instead, which bounds the rounds. One cache serves one admission request.
 */

/** The user a check is made for (the request's user, or a service account's). */
export interface AuthzUser {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** A resource check; `version` is always '*' (the library checks a resource, not one version of it). */
export interface AuthzResourceQuestion {
  readonly verb: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

export interface AuthzPathQuestion {
  readonly verb: string;
  readonly path: string;
}

export type AuthzQuestion = AuthzResourceQuestion | AuthzPathQuestion;

export interface AuthzDecision {
  readonly decision: 'allow' | 'deny' | 'noOpinion';
  readonly reason: string;
}

/** The server's authorizer; a rejected promise is an authorizer failure (the answer's `error`). */
export type AskAuthorizer = (user: AuthzUser, question: AuthzQuestion) => Promise<AuthzDecision>;

/** A real answer as CEL's Decision shows it. */
export interface AuthzAnswer extends AuthzDecision {
  /** Set when the authorizer failed. */
  readonly error?: string;
}

export const MAX_AUTHORIZATION_ROUNDS = 8;
export const MAX_AUTHORIZATION_CHECKS = 64;
export const AUTHORIZATION_CONCURRENCY = 4;

/** Thrown by a check whose answer is not known yet; the run that saw it is always discarded. */
export class ProvisionalAnswer extends Error {
  constructor() {
    super('authorization answer pending');
  }
}

interface Wanted {
  readonly user: AuthzUser;
  readonly question: AuthzQuestion;
}

interface Run {
  readonly missed: Map<string, Wanted>;
  readonly final: boolean;
}

export interface AnswerLimits {
  readonly rounds: number;
  readonly checks: number;
  readonly concurrency: number;
}

const DEFAULT_LIMITS: AnswerLimits = { rounds: MAX_AUTHORIZATION_ROUNDS, checks: MAX_AUTHORIZATION_CHECKS, concurrency: AUTHORIZATION_CONCURRENCY };

/** A stable key for a user: every field the authorizer may look at. */
export function userKey(u: AuthzUser): string {
  const extra = u.extra ? Object.keys(u.extra).sort().map((k) => [k, u.extra?.[k]]) : [];
  return JSON.stringify([u.username, u.uid ?? '', u.groups, extra]);
}

const questionKey = (q: AuthzQuestion): string =>
  'path' in q ? JSON.stringify(['path', q.verb, q.path]) : JSON.stringify([q.verb, q.group, q.version, q.resource, q.subresource, q.namespace, q.name]);

/** The answers of one admission request, and the runs that use them. */
export class AuthorizationAnswers {
  private readonly known = new Map<string, AuthzAnswer>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private run: Run | undefined;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly limits: AnswerLimits;

  constructor(
    private readonly ask: AskAuthorizer,
    limits: Partial<AnswerLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** The answer for a check made during a run; throws ProvisionalAnswer when it must be asked first. */
  answer(user: AuthzUser, keyOfUser: string, question: AuthzQuestion): AuthzAnswer {
    const key = `${keyOfUser}\u0000${questionKey(question)}`;
    const known = this.known.get(key);
    if (known) return known;
    const run = this.run;
    if (!run) throw new Error('authorizer checks can only run during an admission evaluation');
    if (run.final) throw new Error(`authorizer checks still unanswered after ${this.limits.rounds} rounds of evaluation`);
    if (!run.missed.has(key) && !this.inFlight.has(key) && this.known.size + this.inFlight.size + run.missed.size >= this.limits.checks) {
      throw new Error(`too many distinct authorizer checks in one request (at most ${this.limits.checks})`);
    }
    run.missed.set(key, { user, question });
    throw new ProvisionalAnswer();
  }

  /**
   * Evaluates `evaluate` until a run needs no answer it does not have, and returns (or throws) that
   * run's outcome. Outcomes of runs that met an unanswered check, values and errors alike, are dropped.
   */
  async evaluate<T>(evaluate: () => T): Promise<T> {
    for (let round = 1; ; round++) {
      const run: Run = { missed: new Map(), final: round >= this.limits.rounds };
      if (this.run) throw new Error('authorizer evaluations cannot nest');
      this.run = run;
      let result: { value: T } | { thrown: unknown };
      try {
        result = { value: evaluate() };
      } catch (e) {
        result = { thrown: e };
      } finally {
        this.run = undefined;
      }
      if (run.missed.size === 0) {
        if ('thrown' in result) throw result.thrown;
        return result.value;
      }
      await Promise.all([...run.missed].map(([key, wanted]) => this.fetch(key, wanted)));
    }
  }

  /** Asks for one answer, unless it is known or already being asked (by this loop or another). */
  private fetch(key: string, wanted: Wanted): Promise<void> {
    if (this.known.has(key)) return Promise.resolve();
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const asked = this.limited(() => this.ask(wanted.user, wanted.question))
      .then(
        (d) => void this.known.set(key, { decision: d.decision, reason: d.reason ?? '' }),
        (e: unknown) => void this.known.set(key, { decision: 'noOpinion', reason: '', error: e instanceof Error ? e.message : String(e) }),
      )
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, asked);
    return asked;
  }

  /** Runs `f` when fewer than `concurrency` asks are outstanding. */
  private async limited<T>(f: () => Promise<T>): Promise<T> {
    // A waiter is handed the finishing ask's slot, so `active` never overshoots.
    if (this.active >= this.limits.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await f();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
