import { systemClock } from '../../shared/core/clock';
import { silentLog } from '../../shared/core/logger';
import type { PlanningApiClientOptions } from '../../shared/planning-api/client-options';
import { resolveClientSettings, type ClientSettingsInput } from '../../shared/planning-api/client-settings';
import type { Credentials } from '../../shared/planning-api/credentials';
import type { PlanningSource } from '../../shared/report/dataset/planning-source';
import { resolveExportSettings } from '../../shared/report/definition/export-settings';
import { createExportClient } from '../../shared/report/run/plan-run';

/** A client as a run makes it, with the default settings (tests that count or break its requests). */
export function testClient(credentials: Credentials, fetch?: typeof globalThis.fetch): PlanningSource {
  return createExportClient(credentials, { settings: resolveExportSettings(), log: silentLog, clock: systemClock, planning: { fetch } });
}

/** A client's options with its sizes written flat, as a test of the client alone reads best. */
export type FlatClientOptions = Partial<PlanningApiClientOptions> & ClientSettingsInput;

/** Resolves the flat sizes into the client's `settings`, as a door does once. */
export function clientOptions(options: FlatClientOptions): Partial<PlanningApiClientOptions> {
  const { timeoutMs, pageLimit, boardItemsPageSize, maxResponseBytes, maxListPages, maxListBytes, ...rest } = options;
  return { ...rest, settings: resolveClientSettings({ timeoutMs, pageLimit, boardItemsPageSize, maxResponseBytes, maxListPages, maxListBytes }) };
}
