import { describe, expect, it } from 'vitest';
import type { AlertMessage } from '../../../shared/channels/channel';
import { channelOf } from '../../../shared/channels/channels';
import { slackProblems, teamsProblems } from '../../support/webhook-recorder';
import { alertEmail } from '../../../shared/messages/alert-email';

const message = (lines: number): AlertMessage => ({
  title: 'Alert: Train A – weekly',
  generated: '23/11/2026, 07:00 CET',
  runId: 's-20261123T060000Z',
  lines: Array.from({ length: lines }, (_, i) => ({ rule: 'Risk raised to the highest level', text: `SEC-${i} *Vendor* <lock-in> [x](https://ev.il): Low → Critical` })),
  workbookUrl: 'https://api.example.test/links/abc',
});

describe('the alert payload of each channel', () => {
  it('writes Slack and Teams messages the services accept, however many lines crossed, with the planning tool\'s text escaped', () => {
    for (const lines of [1, 200]) {
      const slack = channelOf('slack')!.alertPayload(message(lines)) as { text: string; blocks: { text?: { text: string } }[] };
      expect(slackProblems(slack)).toEqual([]);
      expect(slack.text).toBe(`Alert: Train A – weekly: Risk raised to the highest level: SEC-0 *Vendor* &lt;lock-in&gt; [x](https://ev.il): Low → Critical${lines > 1 ? ` and ${lines - 1} more` : ''}`);
      const teams = channelOf('teams')!.alertPayload(message(lines));
      expect(teamsProblems(teams)).toEqual([]);
      expect(JSON.stringify(teams)).toContain('SEC-0 \\\\*Vendor\\\\* \\\\<lock-in\\\\> \\\\[x\\\\](https://ev.il)');
    }
    const many = channelOf('slack')!.alertPayload(message(200)) as { blocks: { text?: { text: string } }[] };
    expect(many.blocks.map((b) => b.text?.text ?? '').join('\n')).toContain('…and 154 more');
  });
});

describe('the alert e-mail', () => {
  it('names the first line crossed in its subject and counts the others in words, not as a weekly change', () => {
    const subject = (lines: number) => alertEmail(message(lines), 'train-a', 'rte@example.com', { from: 'reports@example.com' }).subject;
    expect(subject(1)).toBe('Alert: Train A – weekly: Risk raised to the highest level: SEC-0 *Vendor* <lock-in> [x](https://ev.il): Low → Critical');
    expect(subject(2)).toMatch(/: Low → Critical and 1 more$/);
    expect(subject(2)).not.toMatch(/\(\+/);
  });
});
