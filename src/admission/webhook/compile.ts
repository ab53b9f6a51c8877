/**
 * Webhook configurations in the form the dispatcher uses: rules split, selectors and CEL compiled, the
 * client settings resolved. Compiled once per configuration object version (uid + resourceVersion), so a
 * request only looks entries up. A webhook whose stored form cannot be compiled keeps the reason; it is
 * reported (through failurePolicy) only for requests its rules select.
 */
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { compileConditions, type CompiledCondition } from './conditions.js';
import { compileRule, type Rule } from './rules.js';
import { compileLabelSelector, type LabelSelector } from './selector.js';

export const DEFAULT_TIMEOUT_SECONDS = 10;
export const DEFAULT_SERVICE_PORT = 443;
/** AdmissionReview versions this server can send, in its order of preference when a webhook lists several. */
export const SUPPORTED_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
export type ReviewVersion = (typeof SUPPORTED_REVIEW_VERSIONS)[number];

export interface ServiceRef {
  readonly namespace: string;
  readonly name: string;
  readonly path: string;
  readonly port: number;
}

export interface ClientConfig {
  readonly url?: string;
  readonly service?: ServiceRef;
  /** PEM text of the CA bundle; undefined: the system roots. */
  readonly ca?: string;
  /** Identifies the connection pool: same endpoint and CA, same keep-alive agent. */
  readonly key: string;
}

export interface CompiledWebhook {
  readonly name: string;
  readonly configurationName: string;
  /** Unique within the plugin: which webhook a reinvocation refers to. */
  readonly id: string;
  readonly rules: readonly Rule[];
  readonly equivalentMatch: boolean;
  readonly namespaceSelector: LabelSelector;
  readonly objectSelector: LabelSelector;
  readonly conditions: readonly CompiledCondition[];
  readonly failOpen: boolean;
  readonly sideEffectsSafeOnDryRun: boolean;
  readonly timeoutMs: number;
  readonly reviewVersion: ReviewVersion;
  readonly reinvokeIfNeeded: boolean;
  readonly client: ClientConfig;
  /** Set when the stored webhook could not be compiled: calling it is an error. */
  readonly brokenReason?: string;
}

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

function clientConfigOf(cc: unknown, path: string): ClientConfig {
  if (!isObject(cc)) throw new Error(`${path}: must be an object`);
  let ca: string | undefined;
  if (typeof cc.caBundle === 'string' && cc.caBundle !== '') ca = Buffer.from(cc.caBundle, 'base64').toString('utf8');
  const caKey = ca ?? '';
  if (typeof cc.url === 'string') return { url: cc.url, ca, key: `url ${cc.url}\n${caKey}` };
  if (isObject(cc.service)) {
    const s = cc.service;
    const service: ServiceRef = {
      namespace: str(s.namespace),
      name: str(s.name),
      path: str(s.path),
      port: typeof s.port === 'number' ? s.port : DEFAULT_SERVICE_PORT,
    };
    if (service.namespace === '' || service.name === '') throw new Error(`${path}.service: namespace and name are required`);
    return { service, ca, key: `svc ${service.namespace}/${service.name}:${service.port}\n${caKey}` };
  }
  throw new Error(`${path}: one of url or service is required`);
}

function reviewVersionOf(v: unknown): ReviewVersion | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.find((x): x is ReviewVersion => (SUPPORTED_REVIEW_VERSIONS as readonly unknown[]).includes(x));
}

function compileWebhook(config: string, hook: Record<string, unknown>, index: number, mutating: boolean): CompiledWebhook {
  const name = str(hook.name);
  const at = `webhooks[${index}]`;
  const base = {
    name,
    configurationName: config,
    id: `${config}/${index}/${name}`,
    failOpen: hook.failurePolicy === 'Ignore',
    sideEffectsSafeOnDryRun: hook.sideEffects === 'None' || hook.sideEffects === 'NoneOnDryRun',
    timeoutMs: 1000 * (typeof hook.timeoutSeconds === 'number' && hook.timeoutSeconds > 0 ? hook.timeoutSeconds : DEFAULT_TIMEOUT_SECONDS),
    reinvokeIfNeeded: mutating && hook.reinvocationPolicy === 'IfNeeded',
    equivalentMatch: hook.matchPolicy !== 'Exact',
    rules: Array.isArray(hook.rules) ? hook.rules.filter(isObject).map(compileRule) : [],
  };
  try {
    const reviewVersion = reviewVersionOf(hook.admissionReviewVersions);
    if (!reviewVersion) throw new Error(`${at}.admissionReviewVersions: none of ${SUPPORTED_REVIEW_VERSIONS.join(', ')} is listed`);
    return {
      ...base,
      reviewVersion,
      namespaceSelector: compileLabelSelector(hook.namespaceSelector, `${at}.namespaceSelector`),
      objectSelector: compileLabelSelector(hook.objectSelector, `${at}.objectSelector`),
      conditions: compileConditions(hook.matchConditions, `${at}.matchConditions`),
      client: clientConfigOf(hook.clientConfig, `${at}.clientConfig`),
    };
  } catch (e) {
    const all = compileLabelSelector(undefined, '');
    return { ...base, reviewVersion: 'v1', namespaceSelector: all, objectSelector: all, conditions: [], client: { key: '' }, brokenReason: (e as Error).message };
  }
}

export function compileConfiguration(o: ApiObject, mutating: boolean): CompiledWebhook[] {
  const config = o.metadata?.name ?? '';
  const hooks = Array.isArray(o.webhooks) ? o.webhooks : [];
  const out: CompiledWebhook[] = [];
  hooks.forEach((h, i) => {
    if (isObject(h)) out.push(compileWebhook(config, h, i, mutating));
  });
  return out;
}

/** The current configuration objects of one kind (from the watch cache). */
export type ConfigurationLister = () => Promise<readonly ApiObject[]>;

interface Entry {
  resourceVersion: string;
  hooks: CompiledWebhook[];
  /** Last list in which the object was seen, to drop entries of deleted configurations. */
  seen: number;
}

/**
 * Compiled webhooks of the current configuration objects, in the reference's order: configurations by
 * name, webhooks in their listed order. Recompiles only objects whose resourceVersion changed.
 */
export class CompiledConfigurations {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;
  private lastObjects: readonly ApiObject[] | undefined;
  private lastHooks: CompiledWebhook[] = [];

  constructor(private readonly mutating: boolean) {}

  hooksOf(objects: readonly ApiObject[]): readonly CompiledWebhook[] {
    if (objects.length === 0) return EMPTY;
    if (objects === this.lastObjects) return this.lastHooks;
    const gen = ++this.generation;
    let changed = objects.length !== this.entries.size;
    const sorted = objects.length === 1 ? objects : [...objects].sort(byName);
    const hooks: CompiledWebhook[] = [];
    for (const o of sorted) {
      const key = o.metadata?.uid ?? o.metadata?.name ?? '';
      const rv = o.metadata?.resourceVersion ?? '';
      let entry = this.entries.get(key);
      if (!entry || entry.resourceVersion !== rv) {
        entry = { resourceVersion: rv, hooks: compileConfiguration(o, this.mutating), seen: gen };
        this.entries.set(key, entry);
        changed = true;
      }
      entry.seen = gen;
      for (const h of entry.hooks) hooks.push(h);
    }
    if (changed) for (const [k, e] of this.entries) if (e.seen !== gen) this.entries.delete(k);
    this.lastObjects = objects;
    this.lastHooks = hooks;
    return hooks;
  }
}

const EMPTY: readonly CompiledWebhook[] = Object.freeze([]);
const byName = (a: ApiObject, b: ApiObject) => {
  const x = a.metadata?.name ?? '';
  const y = b.metadata?.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * How long a listed set of configurations is used without asking again. Within it a request costs no
 * await at all (the hot write path with no webhooks); past it the next request lists again, so a
 * configuration change applies well within a second.
 */
export const CONFIGURATION_MAX_AGE_MS = 100;

/** The current compiled webhooks: synchronously while fresh, else a promise (shared by concurrent requests). */
export class ConfigurationSource {
  private hooks: readonly CompiledWebhook[] = EMPTY;
  private fetchedAt = -Infinity;
  private pending: Promise<readonly CompiledWebhook[]> | undefined;
  private readonly compiled: CompiledConfigurations;

  constructor(
    private readonly list: ConfigurationLister,
    mutating: boolean,
    private readonly maxAgeMs = CONFIGURATION_MAX_AGE_MS,
  ) {
    this.compiled = new CompiledConfigurations(mutating);
  }

  current(): readonly CompiledWebhook[] | Promise<readonly CompiledWebhook[]> {
    if (performance.now() - this.fetchedAt < this.maxAgeMs) return this.hooks;
    this.pending ??= this.refresh();
    return this.pending;
  }

  private async refresh(): Promise<readonly CompiledWebhook[]> {
    const started = performance.now();
    try {
      this.hooks = this.compiled.hooksOf(await this.list());
      this.fetchedAt = started;
      return this.hooks;
    } finally {
      this.pending = undefined;
    }
  }
}

/** Runs `run` on the current webhooks: nothing allocated and nothing awaited when there are none. */
export function withHooks(source: ConfigurationSource, run: (hooks: readonly CompiledWebhook[]) => Promise<void>): Promise<void> | undefined {
  const hooks = source.current();
  if (Array.isArray(hooks)) return hooks.length === 0 ? undefined : run(hooks as readonly CompiledWebhook[]);
  return (hooks as Promise<readonly CompiledWebhook[]>).then((h) => (h.length === 0 ? undefined : run(h)));
}
