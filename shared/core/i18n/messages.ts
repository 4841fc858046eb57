import { IntlMessageFormat } from 'intl-messageformat';
import { CATALOGUES, SOURCE_CATALOGUE, SOURCE_LANGUAGE, type Catalogue } from './catalogues';

/**
 * The words of one reader's report: every heading, label, sentence and button the report writes
 * itself, looked up by message id in the catalogue of the reader's language and formatted with ICU
 * MessageFormat (intl-messageformat: plurals and selects follow the language's rules, "1 Risiko",
 * "2 Risiken"). Resolved once per reader and passed down (inside ReaderFormat, core/format.ts).
 * Data (titles, names, statuses as the planning tool serves them) is never looked up here.
 */

/** Every message id: the English catalogue's keys (the source). */
export type MessageId = keyof typeof SOURCE_CATALOGUE;
export type MessageValues = Readonly<Record<string, string | number>>;

export interface Messages {
  /** The tag the words are in, for `lang` attributes and the PDF's `/Lang`: the reader's locale when its language has a catalogue, else `en`. */
  readonly language: string;
  /** The message `id` in the reader's language, its `{arguments}` filled from `values`. */
  t(id: MessageId, values?: MessageValues): string;
  /** Whether the catalogues have a message `id` (a name built from data, such as a column's, may have none). */
  has(id: string): id is MessageId;
}

/** `de-AT` → `de-AT`, `de`, then English: the catalogues a locale reads from, most particular first. */
export function languageChain(locale: string): string[] {
  const chain: string[] = [];
  let tag = locale;
  for (;;) {
    chain.push(tag);
    const cut = tag.lastIndexOf('-');
    if (cut < 0) break;
    tag = tag.slice(0, cut);
  }
  return chain.includes(SOURCE_LANGUAGE) ? chain : [...chain, SOURCE_LANGUAGE];
}

/**
 * The messages of `locale` (a canonical BCP 47 tag). A message its own catalogue lacks comes from the
 * next one in the chain (the catalogue test keeps the shipped languages complete). `catalogues`:
 * the shipped ones unless a test brings its own.
 */
export function messagesFor(locale: string, catalogues: Readonly<Record<string, Catalogue>> = CATALOGUES): Messages {
  const chain = languageChain(locale).flatMap((tag) => {
    const catalogue: Catalogue | undefined = catalogues[tag] ?? (tag === SOURCE_LANGUAGE ? SOURCE_CATALOGUE : undefined);
    return catalogue ? [{ tag, catalogue }] : [];
  });
  const own = chain[0];
  // A language without a catalogue reads English, and says so.
  const language = own && (own.tag !== SOURCE_LANGUAGE || locale.split('-')[0] === SOURCE_LANGUAGE) ? locale : SOURCE_LANGUAGE;
  const formats = new Map<string, IntlMessageFormat>();
  const formatOf = (id: string): IntlMessageFormat => {
    let format = formats.get(id);
    if (!format) {
      const source = chain.find((c) => c.catalogue[id] !== undefined);
      if (!source) throw new Error(`no catalogue has the message ${id}`);
      // Plurals by the rules of the words' language.
      format = new IntlMessageFormat(source.catalogue[id] as string, language);
      formats.set(id, format);
    }
    return format;
  };
  return {
    language,
    t: (id, values) => String(formatOf(id).format(values)),
    has: (id): id is MessageId => chain.some((c) => c.catalogue[id] !== undefined),
  };
}
