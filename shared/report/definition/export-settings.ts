/**
 * How an export talks to the planning API, resolved once at a door (the command line, the export
 * Lambda) into one typed object that is passed down whole: adding a setting is one field here and
 * one line where the client is built, not a copy in every layer between.
 */
import * as z from 'zod';
import {
  DEFAULT_API_CONCURRENCY,
  DEFAULT_API_TIMEOUT_MS,
  DEFAULT_BOARD_ITEMS_PAGE_SIZE,
  DEFAULT_MAX_LIST_BYTES,
  DEFAULT_MAX_LIST_PAGES,
  DEFAULT_MAX_RESPONSE_BYTES,
} from '../../core/defaults';
import { ConfigError } from '../../core/errors';

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
  boardItemsPageSize: positiveInt.default(DEFAULT_BOARD_ITEMS_PAGE_SIZE),
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
