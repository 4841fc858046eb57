/**
 * The registries of the exporter, as one value a run takes: the tables and formats by name
 * (names.ts: tables/registry.ts and manifest/formats.ts) and what writes each format
 * (outputs/index.ts). Production code uses REGISTRY; a test adds a table or a format by handing over
 * a copy with one more entry, so every list derived from them (schemas, titles, outputs, file
 * labels) follows. Only the run imports this module: it loads every renderer. What names a file for
 * people (the run page, the e-mail) takes the names alone.
 */
import { NAMES, type ReportNames } from './names';
import { FORMAT_OUTPUTS, type FormatOutputs } from './outputs/index';

export interface Registry extends ReportNames, FormatOutputs {}

export const REGISTRY: Registry = { ...NAMES, outputs: FORMAT_OUTPUTS };
