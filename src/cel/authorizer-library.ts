/**
 * The reference's CEL authorizer library (`kubernetes.authorization.*` types) as admission expressions
 * use it:
 *
 *   authorizer.group(g).resource(r)[.subresource(s)][.namespace(ns)][.name(n)].check(verb)
 *   authorizer.path(p).check(verb)
 *   authorizer.serviceAccount(namespace, name)            an Authorizer for that service account
 *   authorizer.requestResource                            the request's own resource, preset
 *   <Decision>.allowed() .reason() .errored() .error()
 *
 * The 1.31 `fieldSelector`/`labelSelector` steps exist only behind the alpha AuthorizeWithSelectors
 * feature gate (off by default), which this server does not offer, so they are refused at compile time.
 * Values are immutable; each builder step returns a new one. A check's answer comes from the
 * AuthorizationAnswers of the evaluation (see authorizer-answers.ts).
 */
import type { Environment } from '@marcbachmann/cel-js';
import { userKey, type AuthorizationAnswers, type AuthzAnswer, type AuthzQuestion, type AuthzUser } from './authorizer-answers.js';
import { walkAst, type AstNode } from './compile.js';

const NS = 'kubernetes.authorization';
export const AUTHORIZER_TYPE = `${NS}.Authorizer`;
const GROUP_CHECK = `${NS}.GroupCheck`;
const RESOURCE_CHECK = `${NS}.ResourceCheck`;
const PATH_CHECK = `${NS}.PathCheck`;
const DECISION = `${NS}.Decision`;

/** The name policies and match conditions use for the library's root value. */
export const AUTHORIZER_VARIABLE = 'authorizer';

/** Who checks, and where the answers come from; shared by every value built from one Authorizer. */
class Checker {
  readonly key: string;
  constructor(
    readonly answers: AuthorizationAnswers,
    readonly user: AuthzUser,
  ) {
    this.key = userKey(user);
  }

  decide(question: AuthzQuestion): DecisionValue {
    return new DecisionValue(this.answers.answer(this.user, this.key, question));
  }
}

interface ResourceTarget {
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

export class AuthorizerValue {
  readonly #checker: Checker;
  /** Only the root `authorizer` value has it (the compile check refuses it elsewhere). */
  readonly requestResource: ResourceCheckValue | undefined;

  constructor(checker: Checker, request: ResourceTarget | undefined) {
    this.#checker = checker;
    this.requestResource = request ? new ResourceCheckValue(checker, request) : undefined;
  }

  group(group: string): GroupCheckValue {
    return new GroupCheckValue(this.#checker, group);
  }

  path(path: string): PathCheckValue {
    return new PathCheckValue(this.#checker, path);
  }

  serviceAccount(namespace: string, name: string): AuthorizerValue {
    return new AuthorizerValue(new Checker(this.#checker.answers, serviceAccountUser(namespace, name)), undefined);
  }
}

export class GroupCheckValue {
  readonly #checker: Checker;
  readonly #group: string;
  constructor(checker: Checker, group: string) {
    this.#checker = checker;
    this.#group = group;
  }

  resource(resource: string): ResourceCheckValue {
    return new ResourceCheckValue(this.#checker, { group: this.#group, resource, subresource: '', namespace: '', name: '' });
  }
}

export class ResourceCheckValue {
  readonly #checker: Checker;
  readonly #target: ResourceTarget;
  constructor(checker: Checker, target: ResourceTarget) {
    this.#checker = checker;
    this.#target = target;
  }

  with(change: Partial<ResourceTarget>): ResourceCheckValue {
    return new ResourceCheckValue(this.#checker, { ...this.#target, ...change });
  }

  check(verb: string): DecisionValue {
    return this.#checker.decide({ verb, version: '*', ...this.#target });
  }
}

export class PathCheckValue {
  readonly #checker: Checker;
  readonly #path: string;
  constructor(checker: Checker, path: string) {
    this.#checker = checker;
    this.#path = path;
  }

  check(verb: string): DecisionValue {
    return this.#checker.decide({ verb, path: this.#path });
  }
}

/** Only ever built from a real answer. */
export class DecisionValue {
  readonly #answer: AuthzAnswer;
  constructor(answer: AuthzAnswer) {
    this.#answer = answer;
  }

  get allowed(): boolean {
    return this.#answer.decision === 'allow';
  }

  get reason(): string {
    return this.#answer.reason;
  }

  get error(): string {
    return this.#answer.error ?? '';
  }
}

/** The user the reference builds for a service account name (no uid, its two service account groups). */
export function serviceAccountUser(namespace: string, name: string): AuthzUser {
  return { username: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] };
}

/**
 * The `authorizer` value of one evaluation: checks as `user`, answers from `answers`; `request` presets
 * `authorizer.requestResource` (group, resource, subresource, namespace and name of the request).
 */
export function authorizerValue(answers: AuthorizationAnswers, user: AuthzUser, request: ResourceTarget): AuthorizerValue {
  return new AuthorizerValue(new Checker(answers, user), request);
}

const noFields = (ctor: unknown) => ({ ctor, fields: {} }) as never;

/** Declares the library's types and functions, and the `authorizer` variable, on `env`. */
export function registerAuthorizerLibrary(env: Environment): Environment {
  return env
    .registerType(RESOURCE_CHECK, noFields(ResourceCheckValue))
    .registerType(AUTHORIZER_TYPE, { ctor: AuthorizerValue, fields: { requestResource: RESOURCE_CHECK } } as never)
    .registerType(GROUP_CHECK, noFields(GroupCheckValue))
    .registerType(PATH_CHECK, noFields(PathCheckValue))
    .registerType(DECISION, noFields(DecisionValue))
    .registerFunction(`${AUTHORIZER_TYPE}.group(string): ${GROUP_CHECK}`, (a: AuthorizerValue, g: string) => a.group(g))
    .registerFunction(`${AUTHORIZER_TYPE}.path(string): ${PATH_CHECK}`, (a: AuthorizerValue, p: string) => a.path(p))
    .registerFunction(`${AUTHORIZER_TYPE}.serviceAccount(string, string): ${AUTHORIZER_TYPE}`, (a: AuthorizerValue, ns: string, n: string) => a.serviceAccount(ns, n))
    .registerFunction(`${GROUP_CHECK}.resource(string): ${RESOURCE_CHECK}`, (g: GroupCheckValue, r: string) => g.resource(r))
    .registerFunction(`${RESOURCE_CHECK}.subresource(string): ${RESOURCE_CHECK}`, (r: ResourceCheckValue, s: string) => r.with({ subresource: s }))
    .registerFunction(`${RESOURCE_CHECK}.namespace(string): ${RESOURCE_CHECK}`, (r: ResourceCheckValue, ns: string) => r.with({ namespace: ns }))
    .registerFunction(`${RESOURCE_CHECK}.name(string): ${RESOURCE_CHECK}`, (r: ResourceCheckValue, n: string) => r.with({ name: n }))
    .registerFunction(`${RESOURCE_CHECK}.check(string): ${DECISION}`, (r: ResourceCheckValue, verb: string) => r.check(verb))
    .registerFunction(`${PATH_CHECK}.check(string): ${DECISION}`, (p: PathCheckValue, verb: string) => p.check(verb))
    .registerFunction(`${DECISION}.allowed(): bool`, (d: DecisionValue) => d.allowed)
    .registerFunction(`${DECISION}.reason(): string`, (d: DecisionValue) => d.reason)
    .registerFunction(`${DECISION}.errored(): bool`, (d: DecisionValue) => d.error !== '')
    .registerFunction(`${DECISION}.error(): string`, (d: DecisionValue) => d.error)
    .registerVariable(AUTHORIZER_VARIABLE, AUTHORIZER_TYPE);
}

const SELECTOR_STEPS = new Set(['fieldSelector', 'labelSelector']);

/**
 * What the type checker cannot say about the library: `requestResource` exists only on the root
 * `authorizer` (not on a service account's Authorizer), and the selector steps are not offered.
 */
export function authorizerProblem(ast: unknown): string | undefined {
  let problem: string | undefined;
  walkAst(ast, (n: AstNode) => {
    if (problem || !Array.isArray(n.args)) return;
    if (n.op === 'rcall' && SELECTOR_STEPS.has(String(n.args[0]))) {
      problem = `${String(n.args[0])}() needs the AuthorizeWithSelectors feature gate, which this server does not offer`;
    }
    const target = n.args[0] as AstNode | undefined;
    if (n.op === '.' && n.args[1] === 'requestResource' && target?.op === 'rcall' && Array.isArray(target.args) && target.args[0] === 'serviceAccount') {
      problem = "undefined field 'requestResource' (only authorizer.requestResource is declared)";
    }
  });
  return problem;
}

/** Whether an expression's AST names the `authorizer` variable. */
export function usesAuthorizer(ast: unknown): boolean {
  let found = false;
  walkAst(ast, (n) => {
    if (n.op === 'id' && n.args === AUTHORIZER_VARIABLE) found = true;
  });
  return found;
}
