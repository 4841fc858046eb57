import de from './messages/de.json';
import en from './messages/en.json';
import fr from './messages/fr.json';

/**
 * The languages the report speaks, by their catalogue's tag (a language, or a language and region
 * where a region words things its own way): one JSON file per language in messages/, keyed by
 * message id, English the source every other file follows (docs/formats.md, "Adding a language").
 */
export type Catalogue = Readonly<Record<string, string>>;

/** English: the source, and the last language every other one falls back to. */
export const SOURCE_CATALOGUE = en;
export const SOURCE_LANGUAGE = 'en';

export const CATALOGUES: Readonly<Record<string, Catalogue>> = { en, de, fr };
