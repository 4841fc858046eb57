import { describe, expect, it } from 'vitest';
import { SOURCE_CATALOGUE } from '../../../shared/core/i18n/catalogues';
import type { RunView } from '../../../shared/http/run-link';
import { renderRunPage } from '../../../shared/http/run-page';
import { readHtml } from '../../support/read-html';

/** Every state of the run page, as a reader of `locale` is shown it (data, such as the title and file labels, stays as given). */
function views(locale: string | undefined): RunView[] {
  const l = locale === undefined ? {} : { locale };
  return [
    { state: 'ready', title: 'ACME weekly', gone: true, ...l },
    { state: 'limited', retryAfterSeconds: 1800, title: 'ACME weekly', ...l },
    { state: 'running', exportId: 'export-0001', title: 'ACME weekly', progress: { datasetsDone: 1, datasetsTotal: 3, rows: 12345 }, ...l },
    { state: 'running', exportId: 'export-0001', title: 'ACME weekly', progress: undefined, ...l },
    {
      state: 'done', exportId: 'export-0001', title: 'ACME weekly', finishedAt: '2026-11-23T06:01:00.000Z', timeZone: 'Europe/Berlin', fresh: false, figures: [], ...l,
      files: [
        { label: 'Workbook', kind: 'Excel', primary: true, name: 'a.xlsx', format: 'xlsx', bytes: 20480, href: 'x' },
        { label: 'Risks', kind: 'CSV', primary: false, name: 'b.csv', format: 'csv', bytes: 2048, href: 'y' },
      ],
    },
    { state: 'done', exportId: 'export-0001', title: 'ACME weekly', finishedAt: '2026-11-23T06:01:00.000Z', timeZone: 'Europe/Berlin', fresh: true, figures: [{ label: 'Offene Risiken', value: '58' }], files: [], ...l },
    { state: 'failed', exportId: 'export-0001', title: 'ACME weekly', ...l },
  ];
}

/** The English run page's own words: the longest run of words of each `runPage.*` message (placeholders cut out). */
const ENGLISH = Object.entries(SOURCE_CATALOGUE)
  .filter(([id]) => id.startsWith('runPage.'))
  .map(([, message]) => message.split(/\{[^}]*\}/).map((s) => s.trim()).sort((a, b) => b.length - a.length)[0]!)
  .filter((words) => /[a-z]{3,}/.test(words));

/** Every state's page, as read: its language, title, text and labels in one. */
function read(view: RunView, options = {}) {
  const page = readHtml(renderRunPage(view, 'tok', { pageToken: 'p', ...options }).body);
  return { lang: page.lang, words: [page.title, page.text, ...page.labels].join('\n') };
}

describe("the run page in its reader's language", () => {
  for (const locale of ['de-DE', 'fr-FR']) {
    it(`writes no English word of its own in ${locale} and declares ${locale}, on every state`, () => {
      const pages = [...views(locale), { state: 'refused' } as const].map((v) => read(v, { locale }));
      for (const page of pages) {
        expect(page.lang).toBe(locale);
        expect(ENGLISH.filter((words) => page.words.includes(words))).toEqual([]);
      }
    });
  }

  it('reads as before in English: its words, sizes and dates', () => {
    const [, limited, running, starting, earlier] = views(undefined).map((v) => read(v));
    expect(limited!.words).toContain('Please try again in 30 minutes.');
    expect(running!.words).toContain('Datasets done: 1 of 3 . Rows so far: 12,345 .');
    expect(starting!.words).toContain('Datasets done: starting . Rows so far: 0 .');
    expect(earlier!.words).toContain('This copy was exported on 23/11/2026, 07:01 CET. It is not the latest data.');
    expect(earlier!.words).toContain('Download the workbook ( 20.0 KiB )');
    expect(earlier!.words).toContain('Risks (CSV, 2.0 KiB )');
    expect(earlier!.lang).toBe('en-GB');
  });

  it('counts and sizes in the words of its language, and tells the script how to count', () => {
    const [, limited, running, , earlier] = views('de-DE').map((v) => read(v));
    expect(limited!.words).toContain('in 30 Minuten erneut');
    expect(running!.words).toContain('Fertige Datensätze: 1 von 3 . Bisherige Zeilen: 12.345 .');
    expect(earlier!.words).toContain('Arbeitsmappe herunterladen ( 20,0 KiB )');
    expect(renderRunPage(views('fr-FR')[2]!, 'tok').body).toContain('data-of="{done} sur {total}"');
  });

  it("declares English, with English words, in a language that has no catalogue", () => {
    const page = read(views('ja-JP')[0]!);
    expect(page.lang).toBe('en');
    expect(page.words).toContain('Get a fresh copy');
  });
});
