import { describe, expect, it } from 'vitest';
import type { RunView } from '../../../shared/http/run-link';
import { renderRunPage } from '../../../shared/http/run-page';
import { messagesFor } from '../../../shared/core/i18n/messages';
import { LOCALES, type TestLocale } from '../../support/locale-run';

const done = (locale: string | undefined): RunView => ({
  state: 'done', exportId: 'export-0001', title: 'ACME weekly', finishedAt: '2026-11-26T06:00:00.000Z',
  timeZone: 'Europe/Berlin', ...(locale !== undefined && { locale }), fresh: false,
  figures: [{ label: 'Open risks', value: '2148' }],
  files: [{ label: 'Workbook', kind: 'Excel', primary: true, name: 'ACME weekly – 2026-11-26.xlsx', format: 'xlsx', bytes: 20480, href: '../links/aaa.bbb' }],
});

describe("the run page in the report's locale", () => {
  for (const locale of Object.keys(LOCALES) as TestLocale[]) {
    const want = LOCALES[locale];
    it(`dates an earlier export and counts rows as ${locale} writes them`, () => {
      const finished = renderRunPage(done(locale), 'tok', { pageToken: 'p' }).body;
      // In the locale's own words (the English reads as before: the last test).
      expect(finished).toContain(messagesFor(locale).t('runPage.earlier', { when: want.generated }));
      expect(finished).toContain(`<time datetime="2026-11-26T06:00:00.000Z">${want.generated}</time>`);
      // The saved file's name keeps the sortable ISO day, whatever the locale.
      expect(finished).toContain('title="ACME weekly – 2026-11-26.xlsx"');

      const running = renderRunPage({ state: 'running', exportId: 'export-0001', title: 'ACME weekly', locale, progress: { datasetsDone: 1, datasetsTotal: 3, rows: 2148 } }, 'tok').body;
      expect(running).toContain(`<span id="rows">${want.integer}</span>`);
      // The script's updates use the same locale.
      expect(running).toContain(`data-locale="${locale}"`);
    });
  }

  it('writes en-GB when the view names no locale', () => {
    expect(renderRunPage(done(undefined), 'tok', { pageToken: 'p' }).body).toContain('This copy was exported on 26/11/2026, 07:00 CET.');
  });
});
