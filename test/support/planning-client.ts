import { systemClock } from '../../shared/core/clock';
import { DEFAULT_API_CONCURRENCY } from '../../shared/core/defaults';
import { PlanningApiClient } from '../../shared/planning-api/client';
import type { PlanningApiClientOptions } from '../../shared/planning-api/client-options';
import { resolveClientSettings, type ClientSettingsInput } from '../../shared/planning-api/client-settings';
import { createLimiter } from '../../shared/planning-api/transport/concurrency';

/** A client's options with its sizes written flat, as a test reads best; the builder resolves them into `settings`. */
export type FlatClientOptions = Partial<Omit<PlanningApiClientOptions, 'settings'>> & ClientSettingsInput;

/**
 * A planning API client as a door makes it: its settings resolved once (the flat sizes a test names,
 * every other the default), a limiter of the default size, the system clock unless the test brings
 * its own. The client takes all three required, so the tests build it here, not one by one.
 */
export function planningClient(options: FlatClientOptions & Pick<PlanningApiClientOptions, 'credentials'>): PlanningApiClient {
  const { timeoutMs, pageLimit, boardItemsPageSize, maxResponseBytes, maxListPages, maxListBytes, ...rest } = options;
  return new PlanningApiClient({
    now: systemClock,
    limiter: createLimiter(DEFAULT_API_CONCURRENCY),
    ...rest,
    settings: resolveClientSettings({ timeoutMs, pageLimit, boardItemsPageSize, maxResponseBytes, maxListPages, maxListBytes }),
  });
}
