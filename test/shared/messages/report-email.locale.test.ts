import { describe, expect, it } from 'vitest';
import { buildReportEmail } from '../../../shared/messages/report-email';
import { messagesFor } from '../../../shared/core/i18n/messages';
import type { Storage } from '../../../shared/storage/storage';
import { LOCALES, localeDefinition, localeRun, RUN_AT, type TestLocale } from '../../support/locale-run';

const key = { id: 'k1', secret: 'a'.repeat(48) };

describe("the report e-mail in the report's locale", () => {
  for (const locale of Object.keys(LOCALES) as TestLocale[]) {
    const want = LOCALES[locale];
    it(`writes ${locale} numbers, percentages, deltas and dates in the subject, both parts and the small print`, async () => {
      const email = await buildReportEmail(localeDefinition(locale), localeRun(locale), {
        from: 'reports@example.com', linkBaseUrl: 'https://api.example.test', key, now: RUN_AT, storage: {} as Storage,
      });
      expect(email.subject).toBe(`ACME weekly – ${want.date}`);
      // The words in the locale's language; the fixture's labels are data here and stay as given.
      const words = want.words;
      expect(email.text).toContain(`ACME weekly\n${words.generated} ${want.generated} (Europe/Berlin)\n`);
      // The comparison's date said once, not after every figure: a line under the run's date, a column header in HTML.
      expect(email.text).toContain(`  Predictability${want.words.colon} ${want.percent} (${want.points})\n`);
      expect(email.text).toContain(`  Open risks${want.words.colon} ${want.integer} (${want.delta})\n`);
      expect(email.text.split(`${words.inBrackets} ${want.since}.\n`)).toHaveLength(2);
      expect(email.text).not.toContain(`${words.since} ${want.since})`);
      expect(email.html.split(`>${words.changeSince} ${want.since}<`)).toHaveLength(2);
      expect(email.text).toContain(`  PI end${want.words.colon} ${want.date}\n`);
      expect(email.text).toContain(`\n${words.changedSince} ${want.since}\n`);
      expect(email.text).toContain(`${words.linksUntil} ${want.until}.`);
      expect(email.html).toContain(`>${want.percent}<`);
      expect(email.html).toContain(`>${want.integer}<`);
      expect(email.html).toContain(`${words.generated} ${want.generated} (Europe/Berlin)`);
      expect(email.html).toContain(`<html lang="${locale}">`);
      // The preview line an inbox shows writes the figures alike, in the headline's order (risks first), and its count in the reader's words;
      // the fixture's English labels match only in English.
      const nothing = messagesFor(locale).t('email.attentionItems', { total: 0, kinds: '' });
      expect(email.html).toContain(locale.startsWith('en') ? `Open risks ${want.integer} · Predictability ${want.percent} · ${nothing}` : nothing);
    });
  }

  it('shows the required strings: de-DE "50,1 %" and "26.11.2026" where en-GB shows "50.1 %" and "26/11/2026"', async () => {
    const options = { from: 'r@example.com', linkBaseUrl: 'https://api.example.test', key, now: RUN_AT, storage: {} as Storage };
    const de = await buildReportEmail(localeDefinition('de-DE'), localeRun('de-DE'), options);
    const gb = await buildReportEmail(localeDefinition('en-GB'), localeRun('en-GB'), options);
    expect(de.text).toContain('50,1 %');
    expect(de.text).toContain('26.11.2026');
    expect(de.text).not.toContain('50.1 %');
    expect(gb.text).toContain('50.1 %');
    expect(gb.text).toContain('26/11/2026');
    expect(gb.text).not.toContain('50,1 %');
  });
});
