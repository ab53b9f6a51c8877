/**
 * Time as the server reads it for behaviour driven by time (token expiry, timestamps). Servers take one
 * through `startServer({ clock })`; tests pass a ManualClock and move it by hand.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to. Starts at the given time (default: the real time now). */
export class ManualClock implements Clock {
  private ms: number;

  constructor(start: number | Date = Date.now()) {
    this.ms = typeof start === 'number' ? start : start.getTime();
    if (!Number.isFinite(this.ms)) throw new Error('ManualClock: the start time must be a finite number of milliseconds or a valid Date');
  }

  now(): number {
    return this.ms;
  }

  set(at: number | Date): void {
    const ms = typeof at === 'number' ? at : at.getTime();
    if (!Number.isFinite(ms)) throw new Error('ManualClock.set: a finite number of milliseconds or a valid Date');
    this.ms = ms;
  }

  /** Moves forward (or back, with a negative step) by `ms`. */
  advance(ms: number): void {
    if (!Number.isFinite(ms)) throw new Error('ManualClock.advance: a finite number of milliseconds');
    this.ms += ms;
  }
}
