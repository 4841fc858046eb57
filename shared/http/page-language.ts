import { canonicalLocale, DEFAULT_LOCALE, localeProblem } from '../core/format';
import { CATALOGUES } from '../core/i18n/catalogues';
import { languageChain } from '../core/i18n/messages';

/**
 * The locale a page for people (the run link's pages, the unsubscribe pages) is written in: the one
 * the link knows (the recipient's, carried in its token, or the report's own `locale`), else the
 * first language of the browser's `Accept-Language` that has a catalogue, else English. A browser's
 * wish for a language we have no words in is passed over rather than answered in English digits
 * with English words under a foreign `lang`.
 */
export function pageLocale(known: string | undefined, acceptLanguage: string | undefined): string {
  if (known !== undefined && localeProblem(known) === undefined) return canonicalLocale(known);
  return spokenByBrowser(acceptLanguage) ?? DEFAULT_LOCALE;
}

/** The browser's most wanted locale that a catalogue speaks (`de-CH;q=0.9` → `de-CH`, read from `de`). */
export function spokenByBrowser(acceptLanguage: string | undefined): string | undefined {
  return wantedLocales(acceptLanguage).find((tag) => languageChain(tag).some((t) => CATALOGUES[t] !== undefined && (t !== 'en' || tag.split('-')[0] === 'en')));
}

/** The tags of an `Accept-Language` header, most wanted first (RFC 9110 §12.5.4); `*`, `q=0` and malformed tags left out. */
function wantedLocales(header: string | undefined): string[] {
  if (!header) return [];
  const weighted = header.split(',').flatMap((part, index) => {
    const [tag = '', ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (tag === '*' || !(weight > 0) || localeProblem(tag) !== undefined) return [];
    return [{ tag: canonicalLocale(tag), weight, index }];
  });
  // Equal weights keep the header's order.
  return weighted.sort((a, b) => b.weight - a.weight || a.index - b.index).map((w) => w.tag);
}
