import { describe, expect, it } from 'vitest';
import { slackPayload } from '../../../shared/channels/slack';
import { teamsPayload } from '../../../shared/channels/teams';
import { buildChannelMessage } from '../../../shared/messages/report-message';
import { LOCALES, localeDefinition, localeRun, type TestLocale } from '../../support/locale-run';

describe("the chat message in the report's locale", () => {
  for (const locale of Object.keys(LOCALES) as TestLocale[]) {
    const want = LOCALES[locale];
    it(`writes ${locale} figures, deltas and dates, the same in Slack and Teams`, () => {
      const message = buildChannelMessage(localeDefinition(locale), localeRun(locale));
      expect(message.generated).toBe(`${want.generated} (Europe/Berlin)`);
      expect(message.headline[0]!.figures).toEqual([
        { label: 'Predictability', value: `${want.percent} (${want.points})` },
        { label: 'Open risks', value: `${want.integer} (${want.delta})` },
        { label: 'PI end', value: want.date },
      ]);
      expect(message.changes?.heading).toBe(`${want.words.changedSince} ${want.since}`);

      const slack = JSON.stringify(slackPayload(message));
      const teams = JSON.stringify(teamsPayload(message));
      // A label and its value with the language's colon ("Open risks : …" in French).
      expect(slack).toContain(`Open risks${want.words.colon} *${want.integer} (${want.delta})*`);
      for (const payload of [slack, teams]) {
        expect(payload).toContain(`${want.generated} (Europe/Berlin)`);
        expect(payload).toContain(want.percent);
        expect(payload).toContain(want.integer);
        expect(payload).toContain(`${want.words.changedSince} ${want.since}`);
        // The figures' comparison date said once, beside the run's own.
        expect(payload.split(`${want.words.inBrackets} ${want.since}.`)).toHaveLength(2);
      }
    });
  }
});
