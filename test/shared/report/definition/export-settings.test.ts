import { describe, expect, it } from 'vitest';
import {
  DEFAULT_API_CONCURRENCY,
  DEFAULT_API_TIMEOUT_MS,
  DEFAULT_BOARD_ITEMS_PAGE_SIZE,
  DEFAULT_MAX_LIST_BYTES,
  DEFAULT_MAX_LIST_PAGES,
  DEFAULT_MAX_RESPONSE_BYTES,
} from '../../../../shared/core/defaults';
import { ConfigError } from '../../../../shared/core/errors';
import { MAX_PAGE_LIMIT } from '../../../../shared/planning-api/client-settings';
import { resolveExportSettings } from '../../../../shared/report/definition/export-settings';

describe('resolveExportSettings', () => {
  it('fills every setting a door leaves out with its default, and keeps no deadline as none', () => {
    expect(resolveExportSettings()).toEqual({
      concurrency: DEFAULT_API_CONCURRENCY,
      timeoutMs: DEFAULT_API_TIMEOUT_MS,
      pageLimit: MAX_PAGE_LIMIT,
      maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
      maxListPages: DEFAULT_MAX_LIST_PAGES,
      maxListBytes: DEFAULT_MAX_LIST_BYTES,
      boardItemsPageSize: DEFAULT_BOARD_ITEMS_PAGE_SIZE,
    });
    expect(resolveExportSettings({ concurrency: undefined, deadline: undefined }).concurrency).toBe(DEFAULT_API_CONCURRENCY);
  });

  it('keeps what a door gives', () => {
    expect(
      resolveExportSettings({ concurrency: 3, timeoutMs: 5_000, maxResponseBytes: 1024, maxListPages: 20, maxListBytes: 4096, boardItemsPageSize: 7, deadline: 1_800_000_000_000 }),
    ).toEqual({
      concurrency: 3, timeoutMs: 5_000, pageLimit: MAX_PAGE_LIMIT, maxResponseBytes: 1024, maxListPages: 20, maxListBytes: 4096, boardItemsPageSize: 7, deadline: 1_800_000_000_000,
    });
  });

  it('refuses a value that is not a positive whole number, naming the setting', () => {
    expect(() => resolveExportSettings({ concurrency: 0 })).toThrow(ConfigError);
    expect(() => resolveExportSettings({ concurrency: 0 })).toThrow(/export setting concurrency is invalid/);
    expect(() => resolveExportSettings({ boardItemsPageSize: 2.5 })).toThrow(/export setting boardItemsPageSize is invalid/);
    expect(() => resolveExportSettings({ maxListPages: 0 })).toThrow(/export setting maxListPages is invalid/);
  });
});
