/**
 * The one shape of time in the exporter: a function that says what time it is now. Doors (handlers,
 * commands) build it once — `systemClock` in production, a fixed or stepping one in tests and in the
 * multi-week demo — and pass it down in the run context; nothing below a door reads the wall clock
 * itself, so a run's times (its run id, folder date, link expiries, lease renewals) all come from one
 * place and a test can set them.
 */
export type Clock = () => Date;

/** The real time. Only doors use it (test/architecture/clock.test.ts checks that nothing else reads the wall clock). */
export const systemClock: Clock = () => new Date();

/** A clock that always says `at` (tests, and a replay of a run at its own time). */
export function fixedClock(at: Date): Clock {
  const time = at.getTime();
  return () => new Date(time);
}

/** One day in milliseconds: UTC days, as every expiry, retention and "days since" in the exporter counts them. */
export const DAY_MS = 86_400_000;

/** The moment `days` whole days after `at` (an expiry, a retention end). */
export function daysAfter(at: Date, days: number): Date {
  return new Date(at.getTime() + days * DAY_MS);
}
