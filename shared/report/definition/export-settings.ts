/**
 * How an export talks to the planning API, resolved once at a door (the command line, the export
 * Lambda) into one typed object that is passed down whole: adding a setting is one field here and
 * one line where the client is built, not a copy in every layer between.
 */
import * as z from 'zod';
import {
  DEFAULT_API_CONCURRENCY,
  DEFAULT_API_TIMEOUT_MS,
  DEFAULT_MAX_LIST_BYTES,
  DEFAULT_MAX_LIST_PAGES,
  DEFAULT_MAX_RESPONSE_BYTES,
} from '../../core/defaults';
import { ConfigError } from '../../core/errors';

/**
 * Board items asked for per request by an export. The items operation has no total, so each board's
 * pages are a chain of requests one after the other: at the API's default of 50 a board of 10,000
 * features is 201 round trips, at 1,000 it is 11, and the client's per-request cost shrinks with them
 * (docs/benchmarks.md). The API documents no maximum; a server that caps it silently sends shorter
 * pages, which the client follows, and one that refuses it with 400 gets 50 (see the client).
 */
export const EXPORT_BOARD_ITEMS_PAGE_SIZE = 1_000;

const positiveInt = z.number().int().positive();

const exportSettingsSchema = z.object({
  /** Requests in flight across the whole export (one limiter shared by every dataset). */
  concurrency: positiveInt.default(DEFAULT_API_CONCURRENCY),
  /** Time limit of each planning API attempt. */
  timeoutMs: positiveInt.default(DEFAULT_API_TIMEOUT_MS),
  /** Largest planning API response read. */
  maxResponseBytes: positiveInt.default(DEFAULT_MAX_RESPONSE_BYTES),
  /** Pages with records one list may take before it is taken for endless (API_MAX_LIST_PAGES). */
  maxListPages: positiveInt.default(DEFAULT_MAX_LIST_PAGES),
  /** Bytes of answers one list may take (API_MAX_LIST_BYTES). */
  maxListBytes: positiveInt.default(DEFAULT_MAX_LIST_BYTES),
  /** Board items per request. */
  boardItemsPageSize: positiveInt.default(EXPORT_BOARD_ITEMS_PAGE_SIZE),
  /** Overall deadline, epoch ms: no planning API request or retry goes past it. Undefined: none. */
  deadline: z.number().optional(),
});

export type ExportSettings = Readonly<z.output<typeof exportSettingsSchema>>;
/** What a door knows; everything it leaves out takes the default. */
export type ExportSettingsInput = Readonly<z.input<typeof exportSettingsSchema>>;

/** Resolves the settings of an export (defaults filled in, every value checked). */
export function resolveExportSettings(input: ExportSettingsInput = {}): ExportSettings {
  const parsed = exportSettingsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`export setting ${issue?.path.join('.') ?? ''} is invalid: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
