/**
 * Test setup (vitest setupFiles): simulators started without a vocabulary speak the one named by
 * SIMULATOR_VOCABULARY ('contract' when unset), so `SIMULATOR_VOCABULARY=docs npx vitest run …`
 * runs the same tests against the field names and shapes of the service's public documentation.
 */
import { setDefaultVocabulary } from '../../simulator/vocabulary';

setDefaultVocabulary(process.env.SIMULATOR_VOCABULARY);
