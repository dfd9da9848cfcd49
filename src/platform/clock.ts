/** Time comes from here so tests can move it instead of sleeping. Milliseconds since the Unix epoch. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; used by tests. */
export class FakeClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(ms: number): void {
    this.current = ms;
  }
}

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

/** UTC day of a timestamp as YYYY-MM-DD (the unit of the daily rollups). */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
