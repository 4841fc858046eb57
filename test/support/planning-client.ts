import { systemClock } from '../../shared/core/clock';
import { DEFAULT_API_CONCURRENCY } from '../../shared/core/defaults';
import { silentLog } from '../../shared/core/logger';
import { PlanningApiClient } from '../../shared/planning-api/client';
import type { PlanningApiClientOptions } from '../../shared/planning-api/client-options';
import { resolveClientSettings, type ClientSettingsInput } from '../../shared/planning-api/client-settings';
import type { Credentials } from '../../shared/planning-api/credentials';
import { createLimiter } from '../../shared/planning-api/transport/concurrency';
import type { PlanningSource } from '../../shared/report/dataset/planning-source';
import { resolveExportSettings } from '../../shared/report/definition/export-settings';
import { createExportClient } from '../../shared/report/run/plan-run';

/** A client as a run makes it, with the default settings (tests that count or break its requests). */
export function testClient(credentials: Credentials, fetch?: typeof globalThis.fetch): PlanningSource {
  return createExportClient(credentials, { settings: resolveExportSettings(), log: silentLog, clock: systemClock, planning: { fetch } });
}

/** A client's options with its sizes written flat, as a test of the client alone reads best; planningClient resolves them into `settings`. */
export type FlatClientOptions = Partial<Omit<PlanningApiClientOptions, 'settings'>> & ClientSettingsInput;

/**
 * A planning API client as a door makes it: its settings resolved once (the flat sizes a test names,
 * every other the default), a limiter of the default size, the system clock unless the test brings
 * its own. The client takes all three required, so the tests build it here, not one by one.
 */
export function planningClient(options: FlatClientOptions & Pick<PlanningApiClientOptions, 'credentials'>): PlanningApiClient {
  const { timeoutMs, pageLimit, boardItemsPageSize, maxResponseBytes, maxListPages, maxListBytes, ...rest } = options;
  return new PlanningApiClient({
    clock: systemClock,
    log: silentLog,
    limiter: createLimiter(DEFAULT_API_CONCURRENCY),
    ...rest,
    settings: resolveClientSettings({ timeoutMs, pageLimit, boardItemsPageSize, maxResponseBytes, maxListPages, maxListBytes }),
  });
}
