/**
 * Runs a plugin check at most once per interval: a result is reused for 20s when healthy and 3s when not
 * (the reference's TTLs), so /livez and /readyz polling does not load the plugin. Concurrent callers share
 * one check in flight.
 */
export const HEALTHY_RESULT_TTL_MS = 20_000;
export const UNHEALTHY_RESULT_TTL_MS = 3_000;

export class HealthProbe {
  private last: { error: Error | undefined; at: number } | undefined;
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly run: () => Promise<void>,
    private readonly now: () => number = Date.now,
  ) {}

  check(): Promise<void> {
    const last = this.last;
    if (last && this.now() - last.at < (last.error ? UNHEALTHY_RESULT_TTL_MS : HEALTHY_RESULT_TTL_MS)) {
      return last.error ? Promise.reject(last.error) : Promise.resolve();
    }
    this.inFlight ??= this.run().then(
      () => this.settle(undefined),
      (e: unknown) => this.settle(e instanceof Error ? e : new Error(String(e))),
    );
    return this.inFlight;
  }

  /** Records a result obtained elsewhere (the v2 status poll), so the next check can reuse it. */
  record(error: Error | undefined): void {
    this.last = { error, at: this.now() };
  }

  private settle(error: Error | undefined): void {
    this.inFlight = undefined;
    this.record(error);
    if (error) throw error;
  }
}
