import { describe, expect, it } from 'vitest';
import { buildReportEmail } from '../../../shared/messages/report-email';
import { buildChannelMessage } from '../../../shared/messages/report-message';
import { slackPayload } from '../../../shared/channels/slack';
import { teamsPayload } from '../../../shared/channels/teams';
import type { Storage } from '../../../shared/storage/storage';
import { localeDefinition, localeRun, RUN_AT } from '../../support/locale-run';

const key = { id: 'k1', secret: 'a'.repeat(48) };
/** The e-mail's and the chat messages' own English words (the fixture's figure labels are data here). */
const ENGLISH = ['Generated', 'since', 'What changed', 'Open the workbook', 'The links work', 'In all', 'added', 'Needs attention', 'Run r1', 'needs attention'];

describe('the report e-mail and chat message in the reader\'s language', () => {
  for (const locale of ['de-DE', 'fr-FR']) {
    it(`write none of their own English words in ${locale}, and declare ${locale}`, async () => {
      const email = await buildReportEmail(localeDefinition(locale), localeRun(locale), {
        from: 'reports@example.com', linkBaseUrl: 'https://api.example.test', key, now: RUN_AT, storage: {} as Storage,
      });
      const message = buildChannelMessage(localeDefinition(locale), localeRun(locale));
      const texts = { text: email.text, html: email.html, slack: JSON.stringify(slackPayload(message)), teams: JSON.stringify(teamsPayload(message)) };
      for (const [surface, text] of Object.entries(texts)) {
        expect(ENGLISH.filter((word) => text.includes(word)).map((word) => `${surface}: ${word}`)).toEqual([]);
      }
      expect(email.html).toContain(`<html lang="${locale}">`);
      // The size of the workbook in the locale's number ("10 B" either way; a comma decimal above 1 KiB).
      expect(email.text).toContain('(Excel, 10 B)');
    });
  }

  it('keeps English readers\' words as they were', async () => {
    const email = await buildReportEmail(localeDefinition('en-GB'), localeRun('en-GB'), {
      from: 'reports@example.com', linkBaseUrl: 'https://api.example.test', key, now: RUN_AT, storage: {} as Storage,
    });
    expect(email.text).toContain('Open the workbook (Excel, 10 B):');
    expect(email.html).toContain('<html lang="en-GB">');
  });
});
