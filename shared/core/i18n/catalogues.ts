import { CATALOGUE_FILES } from './catalogue-index';
import en from './messages/en.json';

/**
 * The languages the report speaks, by their catalogue's tag (a language, or a language and region
 * where a region words things its own way): one JSON file per language in messages/, keyed by
 * message id, English the source every other file follows (docs/formats.md, "Adding a language").
 * The registry is catalogue-index.ts, generated from the folder: adding a language is its file alone.
 */
export type Catalogue = Readonly<Record<string, string>>;

/** English: the source, and the last language every other one falls back to. */
export const SOURCE_CATALOGUE = en;
export const SOURCE_LANGUAGE = 'en';

export const CATALOGUES: Readonly<Record<string, Catalogue>> = CATALOGUE_FILES;
