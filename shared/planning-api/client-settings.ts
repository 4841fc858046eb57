import * as z from 'zod';
import { DEFAULT_API_TIMEOUT_MS, DEFAULT_MAX_LIST_BYTES, DEFAULT_MAX_LIST_PAGES, DEFAULT_MAX_RESPONSE_BYTES } from '../core/defaults';
import { parseSettings } from '../core/settings';

/** The API's maximum (and default) v1 page size. */
export const MAX_PAGE_LIMIT = 50;
/**
 * The PI Board Items `items` operation's own page size: what a client asks for when it was given no
 * boardItemsPageSize (the command line's probes, the tests), and what it falls back to when a server
 * refuses a larger one. An export's size is DEFAULT_BOARD_ITEMS_PAGE_SIZE of its settings.
 */
export const API_BOARD_ITEMS_PAGE_SIZE = 50;

const positiveInt = z.number().int().positive();

/**
 * A planning API client's sizes and time limit. Parsed once, where the client's maker learns them (an
 * export's settings extend this schema, a command line's probe resolves its own), then passed whole:
 * the client neither defaults nor checks them again.
 */
export const clientSettingsSchema = z.object({
  /** Time limit of each attempt (headers and body). */
  timeoutMs: positiveInt.default(DEFAULT_API_TIMEOUT_MS),
  /** v1 page size, 1 to 50. */
  pageLimit: positiveInt.max(MAX_PAGE_LIMIT).default(MAX_PAGE_LIMIT),
  /**
   * Board items asked for per request when a listBoardItems call does not say. The API documents no
   * maximum: a server that caps the size silently just sends shorter pages, which are followed (only an
   * empty page ends a list), and one that refuses a size above 50 with 400 makes the client fall back
   * to 50 for the rest of its life.
   */
  boardItemsPageSize: positiveInt.default(API_BOARD_ITEMS_PAGE_SIZE),
  /** Largest response body read, in bytes; enforced while it streams in (API_MAX_RESPONSE_BYTES). */
  maxResponseBytes: positiveInt.default(DEFAULT_MAX_RESPONSE_BYTES),
  /** Pages with records one list may take before it is taken for endless (API_MAX_LIST_PAGES). */
  maxListPages: positiveInt.default(DEFAULT_MAX_LIST_PAGES),
  /** Bytes of answers one list may take (API_MAX_LIST_BYTES). */
  maxListBytes: positiveInt.default(DEFAULT_MAX_LIST_BYTES),
});

export type ClientSettings = Readonly<z.output<typeof clientSettingsSchema>>;
/** What a client's maker knows; everything it leaves out takes the default. */
export type ClientSettingsInput = Readonly<z.input<typeof clientSettingsSchema>>;

/** Resolves a client's settings (defaults filled in, every value checked): a ConfigError names the first bad one. */
export function resolveClientSettings(input: ClientSettingsInput = {}): ClientSettings {
  return parseSettings(clientSettingsSchema, input, 'planning API client setting');
}
