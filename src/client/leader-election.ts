/**
 * Leader election on a Lease object (spec 2.12 leader election block), with the reference's rules: a lease
 * is held while its holder keeps renewing; another candidate takes it over once it has seen the same record
 * unchanged for the lease duration, timed by its own clock (never the remote timestamps, which other hosts'
 * clocks wrote); a leader that cannot renew within the renew deadline stops leading; stopping releases the
 * lease (empty holder) so another candidate takes over at once.
 */
import { COORDINATION_GROUP } from '../api/naming.js';
import { parseGoDuration } from '../util/duration.js';
import { realClock, type Clock } from './clock.js';
import type { ResourceSource } from './informer.js';
import { sleep } from './retry.js';
import { isNotFound } from './status-error.js';
import type { KubeObject } from './types.js';

export const LEASE_GVR = { group: COORDINATION_GROUP, version: 'v1', plural: 'leases' } as const;
/** Retries wait up to this much longer than the retry period, so candidates do not move in step. */
const JITTER = 1.2;

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}
export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/** The spec 2.12 block as durations in ms (defaults 15 s, 10 s, 2 s, as the reference). */
export interface LeaderElectionTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}
export const DEFAULT_TIMINGS: LeaderElectionTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

export interface LeaderCallbacks {
  /** Runs when this candidate becomes leader; `signal` aborts when it stops leading. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  onStoppedLeading(): void;
  /** The holder this candidate observed changed (also called with its own identity). */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectionConfig extends Partial<LeaderElectionTimings> {
  client: ResourceSource;
  /** Only `leases` (the reference removed the other lock kinds). */
  resourceLock?: string;
  resourceName: string;
  resourceNamespace: string;
  identity: string;
  callbacks: LeaderCallbacks;
  /** Clear the holder when stopping (default true). */
  releaseOnCancel?: boolean;
  clock?: Clock;
}

/** Pure: problems with a configuration, as `field: rule` lines (empty when valid). */
export function validateLeaderElection(c: Partial<LeaderElectionTimings> & { resourceLock?: string; resourceName?: string; resourceNamespace?: string; identity?: string }): string[] {
  const t = { ...DEFAULT_TIMINGS, ...c };
  const errs: string[] = [];
  if (!(t.leaseDurationMs > 0)) errs.push('leaseDuration: must be greater than zero');
  if (!(t.renewDeadlineMs > 0)) errs.push('renewDeadline: must be greater than zero');
  if (!(t.retryPeriodMs > 0)) errs.push('retryPeriod: must be greater than zero');
  if (t.renewDeadlineMs > t.leaseDurationMs) errs.push('renewDeadline: must be less than or equal to leaseDuration');
  if (t.renewDeadlineMs <= t.retryPeriodMs * JITTER) errs.push(`renewDeadline: must be greater than retryPeriod*${JITTER}`);
  if ((c.resourceLock ?? 'leases') !== 'leases') errs.push(`resourceLock: Unsupported value: ${JSON.stringify(c.resourceLock)}: supported values: "leases"`);
  if (c.resourceName !== undefined && !c.resourceName) errs.push('resourceName: Required value');
  if (c.resourceNamespace !== undefined && !c.resourceNamespace) errs.push('resourceNamespace: Required value');
  if (c.identity !== undefined && !c.identity) errs.push('identity: Required value');
  return errs;
}

/**
 * The block as written in a configuration file (`leaseDuration: 15s` ...) to timings; an invalid block
 * throws an Error naming `where` (the file), the field path and the rule.
 */
export function timingsFromBlock(block: { leaseDuration?: string; renewDeadline?: string; retryPeriod?: string; resourceLock?: string }, where: string, path = 'leaderElection'): LeaderElectionTimings {
  const duration = (field: 'leaseDuration' | 'renewDeadline' | 'retryPeriod', fallback: number) => {
    const text = block[field];
    if (text === undefined) return fallback;
    const ms = parseGoDuration(text);
    if (ms === undefined) throw new Error(`${where}: ${path}.${field}: invalid duration ${JSON.stringify(text)}`);
    return ms;
  };
  const t = {
    leaseDurationMs: duration('leaseDuration', DEFAULT_TIMINGS.leaseDurationMs),
    renewDeadlineMs: duration('renewDeadline', DEFAULT_TIMINGS.renewDeadlineMs),
    retryPeriodMs: duration('retryPeriod', DEFAULT_TIMINGS.retryPeriodMs),
  };
  const errs = validateLeaderElection({ ...t, resourceLock: block.resourceLock });
  if (errs.length) throw new Error(`${where}: ${errs.map((e) => `${path}.${e}`).join('; ')}`);
  return t;
}

/** The reference's MicroTime: RFC 3339 with six fraction digits. */
export const microTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

export class LeaderElector {
  private readonly t: LeaderElectionTimings;
  private readonly clock: Clock;
  private observedRaw = '';
  private observed: LeaseSpec = {};
  private observedAt = 0;
  private observedRv: string | undefined;
  private leading = false;
  /** Local time of the last successful acquire or renewal. */
  private renewedAt = 0;

  constructor(private readonly c: LeaderElectionConfig) {
    const errs = validateLeaderElection(c);
    if (errs.length) throw new Error(`leader election: ${errs.join('; ')}`);
    this.t = { ...DEFAULT_TIMINGS, ...pickTimings(c) };
    this.clock = c.clock ?? realClock;
  }

  isLeader(): boolean {
    return this.leading;
  }

  /**
   * The health of leadership, as the reference's leader-election health check: a candidate that is not
   * leading is healthy; a leader is unhealthy once its last renewal is older than the lease duration plus
   * `toleranceMs` (it still acts as leader while another may already have taken the lease). Throws then.
   */
  checkHealth(toleranceMs: number): void {
    if (!this.leading) return;
    const since = this.clock.now() - this.renewedAt;
    if (since > this.t.leaseDurationMs + toleranceMs) {
      throw new Error(`leading, but the lease ${this.c.resourceNamespace}/${this.c.resourceName} was last renewed ${Math.round(since / 1000)} s ago (lease duration ${this.t.leaseDurationMs / 1000} s)`);
    }
  }

  /** The holder last observed ('' = none). */
  leader(): string {
    return this.observed.holderIdentity ?? '';
  }

  /** Campaigns, leads while renewals succeed, and returns when `signal` aborts or the lease is lost. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted && !(await this.tryAcquireOrRenew(signal))) await this.pause(this.jittered(), signal);
    if (signal.aborted) return;
    this.leading = true;
    const leadership = new AbortController();
    Promise.resolve()
      .then(() => this.c.callbacks.onStartedLeading(leadership.signal))
      .catch(() => undefined);
    await this.renewLoop(signal);
    this.leading = false;
    leadership.abort();
    if (signal.aborted && this.c.releaseOnCancel !== false) await this.release();
    this.c.callbacks.onStoppedLeading();
  }

  private async renewLoop(signal: AbortSignal): Promise<void> {
    for (;;) {
      await this.pause(this.t.retryPeriodMs, signal);
      if (signal.aborted) return;
      const deadline = this.clock.now() + this.t.renewDeadlineMs;
      let renewed = false;
      while (!signal.aborted && this.clock.now() < deadline) {
        const budget = AbortSignal.any([signal, AbortSignal.timeout(Math.max(1, deadline - this.clock.now()))]);
        if ((renewed = await this.tryAcquireOrRenew(budget))) break;
        await this.pause(this.t.retryPeriodMs, signal);
      }
      if (!renewed) return;
    }
  }

  /** One attempt: create the lease, renew ours, or take over an expired or released one. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const leases = this.c.client.resource<Lease>(LEASE_GVR, this.c.resourceNamespace);
    const now = this.clock.now();
    const mine = (prev: LeaseSpec): LeaseSpec => ({
      holderIdentity: this.c.identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(this.t.leaseDurationMs / 1000)),
      acquireTime: prev.holderIdentity === this.c.identity && prev.acquireTime ? prev.acquireTime : microTime(now),
      renewTime: microTime(now),
      leaseTransitions: (prev.leaseTransitions ?? 0) + (prev.holderIdentity === this.c.identity ? 0 : 1),
    });
    try {
      let lease: Lease;
      try {
        lease = await leases.get(this.c.resourceName, { signal });
      } catch (e) {
        if (!isNotFound(e)) throw e;
        const spec = { ...mine({}), leaseTransitions: 0 };
        const created = await leases.create({ apiVersion: `${LEASE_GVR.group}/v1`, kind: 'Lease', metadata: { name: this.c.resourceName, namespace: this.c.resourceNamespace }, spec }, { signal });
        this.observe(created, now);
        this.renewedAt = now;
        return true;
      }
      this.observe(lease, now);
      const held = this.observed.holderIdentity;
      const validUntil = this.observedAt + (this.observed.leaseDurationSeconds ?? 0) * 1000;
      if (held && held !== this.c.identity && validUntil > now) return false;
      const updated = await leases.update({ ...lease, spec: mine(lease.spec ?? {}) }, { signal });
      this.observe(updated, now);
      this.renewedAt = now;
      return true;
    } catch {
      // Lost a race (409: another candidate wrote first), timed out, or the server is unreachable: the
      // callers retry every retry period, and a leader gives up after the renew deadline.
      return false;
    }
  }

  /** Records what was seen; the local time is noted only when the record changed. */
  private observe(lease: Lease, now: number): void {
    const spec = lease.spec ?? {};
    this.observedRv = lease.metadata.resourceVersion;
    const raw = JSON.stringify(spec);
    if (raw === this.observedRaw) return;
    const before = this.observed.holderIdentity;
    this.observedRaw = raw;
    this.observed = spec;
    this.observedAt = now;
    if (spec.holderIdentity && spec.holderIdentity !== before) this.c.callbacks.onNewLeader?.(spec.holderIdentity);
  }

  /** Gives the lease up: empty holder, so the next candidate need not wait for it to expire. */
  private async release(): Promise<void> {
    const leases = this.c.client.resource<Lease>(LEASE_GVR, this.c.resourceNamespace);
    if (this.observed.holderIdentity !== this.c.identity || !this.observedRv) return;
    const now = microTime(this.clock.now());
    const spec: LeaseSpec = { leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: this.observed.leaseTransitions ?? 0 };
    await leases
      .update({ apiVersion: `${LEASE_GVR.group}/v1`, kind: 'Lease', metadata: { name: this.c.resourceName, namespace: this.c.resourceNamespace, resourceVersion: this.observedRv }, spec }, { signal: AbortSignal.timeout(this.t.renewDeadlineMs) })
      .catch(() => undefined);
  }

  private jittered(): number {
    return this.t.retryPeriodMs * (1 + (JITTER - 1) * Math.random());
  }

  private pause(ms: number, signal: AbortSignal): Promise<void> {
    return sleep(ms, signal).catch(() => undefined);
  }
}

function pickTimings(c: Partial<LeaderElectionTimings>): Partial<LeaderElectionTimings> {
  const out: Partial<LeaderElectionTimings> = {};
  if (c.leaseDurationMs !== undefined) out.leaseDurationMs = c.leaseDurationMs;
  if (c.renewDeadlineMs !== undefined) out.renewDeadlineMs = c.renewDeadlineMs;
  if (c.retryPeriodMs !== undefined) out.retryPeriodMs = c.retryPeriodMs;
  return out;
}
