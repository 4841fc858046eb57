/**
 * Defaults that more than one door (command line, Lambdas, stack) relies on, in one place so they
 * cannot drift apart. docs/benchmarks.md records how the concurrency was chosen.
 */

/** Planning API requests in flight across one export (one limiter shared by every dataset). */
export const DEFAULT_API_CONCURRENCY = 8;

/** One planning API request may take this long before it is abandoned and retried. */
export const DEFAULT_API_TIMEOUT_MS = 30_000;

/** How long a secret value is reused without asking Secrets Manager again. */
export const DEFAULT_SECRET_MAX_AGE_SECONDS = 300;
