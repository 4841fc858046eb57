import { systemClock } from '../shared/core/clock';
import { silentLog } from '../shared/core/logger';
import { NotFoundError } from '../shared/core/errors';
import { createLimiter, PlanningApiClient, resolveClientSettings } from '../shared/planning-api';
import { DEFAULT_API_CONCURRENCY } from '../shared/core/defaults';
import type { CredentialsSource } from '../shared/secrets/credential-refresh';
import { addressProblem, probeGroups } from './discover-probe';

/**
 * When a run failed on a 404 of the planning API, whether the credentials' addresses or company
 * prefix are what is wrong (swapped URLs, the legacy address as baseUrl, an unknown prefix), told as
 * `discover` tells it: one question per API group, asked only after such a failure. Undefined when
 * the failure was something else or the answers do not point at the addresses.
 */
export async function addressHint(error: unknown, source: CredentialsSource, maxResponseBytes: number | undefined): Promise<string | undefined> {
  if (!(error instanceof NotFoundError)) return undefined;
  try {
    const credentials = await source.getCredentials();
    const client = new PlanningApiClient({ clock: systemClock, log: silentLog, credentials, limiter: createLimiter(DEFAULT_API_CONCURRENCY), settings: resolveClientSettings({ maxResponseBytes, timeoutMs: 15_000 }), retry: { maxAttempts: 2 } });
    return addressProblem(await probeGroups(client), credentials)?.hint;
  } catch {
    // The hint is a second opinion: the run's own error has been told already.
    return undefined;
  }
}
