import { afterAll, describe, expect, it } from 'vitest';
import type { ChannelResult } from '../../../shared/channels/deliver';
import type { Log } from '../../../shared/core/logger';
import type { OutgoingEmail } from '../../../shared/email/ses-mailer';
import { channelNoticeKey, noticeChannel } from '../../../shared/jobs/channel-notice';
import type { Ledger } from '../../../shared/ledger/ledger';
import { LocalLedger } from '../../../shared/ledger/local-ledger';
import { parseReportDefinition } from '../../../shared/report/definition';
import { makeTempDir } from '../../support/temp-dir';

const dir = makeTempDir('channel-notice');
afterAll(() => dir.remove());

const failed: ChannelResult = { type: 'teams', webhook: 'secret "chat/webhooks", field "rte"', status: 'failed', error: 'the Microsoft Teams webhook answered 404' };
const sent: ChannelResult = { type: 'teams', webhook: failed.webhook, status: 'sent' };

function recordingLog(): Log & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (message: string) => {
    lines.push({ level, message });
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('a chat channel failure streak', () => {
  it('is logged once when nobody can be e-mailed, and its end once', async () => {
    const ledger = new LocalLedger(dir.path('no-mail'));
    const log = recordingLog();
    const definition = parseReportDefinition({ name: 'weekly', title: 'Weekly', datasets: { risks: {} } });
    const deps = { ledger, send: undefined, from: undefined, log, now: new Date('2026-11-23T06:00:00Z') };
    const outcomes = [
      await noticeChannel(definition, failed, 'run-1', deps),
      await noticeChannel(definition, failed, 'run-2', deps),
      await noticeChannel(definition, sent, 'run-3', deps),
      await noticeChannel(definition, sent, 'run-4', deps),
    ];
    expect(outcomes).toEqual(['told', 'unchanged', 'told', 'unchanged']);
    expect(log.lines.filter((l) => l.message.startsWith('Report "Weekly"'))).toEqual([
      { level: 'error', message: 'Report "Weekly": Microsoft Teams delivery is failing (nobody to e-mail: no owners or no mail sender)' },
      { level: 'info', message: 'Report "Weekly": Microsoft Teams delivery works again (nobody to e-mail: no owners or no mail sender)' },
    ]);
    expect((await ledger.get(channelNoticeKey('weekly', sent)))?.value).toMatchObject({ status: 'ok', runId: 'run-3' });
  });

  it('tells one of two concurrent attempts that read the same state, by e-mail to the owners', async () => {
    // Both attempts read before either writes: each read waits until the other has read too.
    const inner = new LocalLedger(dir.path('race'));
    let reads = 0;
    let bothRead: () => void = () => undefined;
    const barrier = new Promise<void>((resolve) => (bothRead = resolve));
    const ledger: Ledger = {
      get: async (key) => {
        const entry = await inner.get(key);
        if (++reads === 2) bothRead();
        await barrier;
        return entry;
      },
      put: (key, value, version, options) => inner.put(key, value, version, options),
      describe: () => inner.describe(),
    };
    const mails: OutgoingEmail[] = [];
    const definition = parseReportDefinition({ name: 'weekly', datasets: { risks: {} }, email: { to: ['team@example.test'], onFailure: ['owner@example.test'] } });
    const deps = { ledger, send: (m: OutgoingEmail) => Promise.resolve(mails.push(m)), from: 'reports@example.test', log: recordingLog(), now: new Date('2026-11-23T06:00:00Z') };
    const outcomes = await Promise.all([noticeChannel(definition, failed, 'run-1', deps), noticeChannel(definition, failed, 'run-1', deps)]);
    expect([...outcomes].sort()).toEqual(['lost-race', 'told']);
    expect(mails.map((m) => [m.to, m.subject])).toEqual([[['owner@example.test'], 'Report "weekly": Microsoft Teams delivery is failing']]);
    expect(mails[0]!.text).toContain('secret "chat/webhooks", field "rte"');
  });
});
