/**
 * How an export talks to the planning API, resolved once at a door (the command line, the export
 * Lambda) into one typed object that is passed down whole: adding a setting is one field here and
 * one line where the client is built, not a copy in every layer between.
 */
import * as z from 'zod';
import { DEFAULT_API_CONCURRENCY, DEFAULT_BOARD_ITEMS_PAGE_SIZE } from '../../core/defaults';
import { parseSettings } from '../../core/settings';
import { clientSettingsSchema } from '../../planning-api/client-settings';

/** The client's settings, plus what is the export's own: its shared limiter, its deadline, its board-items page size. */
const exportSettingsSchema = clientSettingsSchema.extend({
  /** Requests in flight across the whole export (one limiter shared by every dataset). */
  concurrency: z.number().int().positive().default(DEFAULT_API_CONCURRENCY),
  /** Board items per request. */
  boardItemsPageSize: z.number().int().positive().default(DEFAULT_BOARD_ITEMS_PAGE_SIZE),
  /**
   * Planning API requests per second of the tenant, shared by every run of it at once through the
   * ledger (shared/ledger/rate-pacer.ts). Undefined: the run paces only itself (its limiter).
   */
  ratePerSecond: z.number().positive().optional(),
  /** Overall deadline, epoch ms: no planning API request or retry goes past it. Undefined: none. */
  deadline: z.number().optional(),
});

export type ExportSettings = Readonly<z.output<typeof exportSettingsSchema>>;
/** What a door knows; everything it leaves out takes the default. */
export type ExportSettingsInput = Readonly<z.input<typeof exportSettingsSchema>>;

/** Resolves the settings of an export (defaults filled in, every value checked). */
export function resolveExportSettings(input: ExportSettingsInput = {}): ExportSettings {
  return parseSettings(exportSettingsSchema, input, 'export setting');
}
