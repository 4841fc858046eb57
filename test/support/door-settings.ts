import { loadCliConfig } from '../../shared/core/config';
import { DefinitionStore } from '../../shared/definitions/definition-store';
import type { Storage } from '../../shared/storage/storage';

/**
 * The settings a door resolves from an empty environment (config.ts's defaults): what a test passes
 * where a door would pass its own, so no test repeats a default and none drifts from config.ts.
 */
export const doorSettings = loadCliConfig({});

/** The stored reports in `storage`, cached as a door with no DEFINITIONS_MAX_AGE_SECONDS set caches them. */
export function storedReports(storage: Storage): DefinitionStore {
  return new DefinitionStore(storage, { maxAgeSeconds: doorSettings.DEFINITIONS_MAX_AGE_SECONDS });
}
