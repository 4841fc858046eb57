import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { deliverToChannels, type ChannelResult } from '../../../../shared/channels/deliver';
import { SesMailer } from '../../../../shared/email/ses-mailer';
import { fixedClock } from '../../../../shared/core/clock';
import type { Log } from '../../../../shared/core/logger';
import type { OutgoingEmail } from '../../../../shared/email/ses-mailer';
import { channelNoticeKey, noticeChannel } from '../../../../shared/messages/notices/channel-notice';
import type { Ledger } from '../../../../shared/ledger/ledger';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { sampleMessage } from '../../../support/channel-message';
import { startSesLocal } from '../../../support/ses-local';
import { makeTempDir } from '../../../support/temp-dir';
import { startWebhookRecorder } from '../../../support/webhook-recorder';

const dir = makeTempDir('channel-notice');
afterAll(() => dir.remove());

const failed: ChannelResult = { type: 'teams', webhook: 'secret "chat/webhooks", field "rte"', status: 'failed', error: 'the Microsoft Teams webhook answered 404' };
const sent: ChannelResult = { type: 'teams', webhook: failed.webhook, status: 'sent' };

function recordingLog(): Log & { lines: { level: string; message: string; extra?: unknown }[] } {
  const lines: { level: string; message: string; extra?: unknown }[] = [];
  const at = (level: string) => (message: string, ...extra: unknown[]) => {
    lines.push({ level, message, ...(extra.length > 0 && { extra }) });
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('a chat channel failure streak', () => {
  it('is logged once when nobody can be e-mailed, and its end once', async () => {
    const ledger = new LocalLedger(dir.path('no-mail'));
    const log = recordingLog();
    const definition = parseReportDefinition({ name: 'weekly', title: 'Weekly', datasets: { risks: {} } });
    const deps = { ledger, mail: undefined, sender: undefined, log, now: new Date('2026-11-23T06:00:00Z') };
    const outcomes = [
      await noticeChannel(definition, failed, 'run-1', deps),
      await noticeChannel(definition, failed, 'run-2', deps),
      await noticeChannel(definition, sent, 'run-3', deps),
      await noticeChannel(definition, sent, 'run-4', deps),
    ];
    expect(outcomes).toEqual(['told', 'unchanged', 'told', 'unchanged']);
    expect(log.lines.filter((l) => l.message.startsWith('Report "Weekly"')).map(({ level, message }) => ({ level, message }))).toEqual([
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
    const deps = { ledger, mail: { send: (m: OutgoingEmail) => Promise.resolve(mails.push(m)) }, sender: 'reports@example.test', log: recordingLog(), now: new Date('2026-11-23T06:00:00Z') };
    const outcomes = await Promise.all([noticeChannel(definition, failed, 'run-1', deps), noticeChannel(definition, failed, 'run-1', deps)]);
    expect([...outcomes].sort()).toEqual(['lost-race', 'told']);
    expect(mails.map((m) => [m.to, m.subject])).toEqual([[['owner@example.test'], 'Report "weekly": Microsoft Teams delivery is failing']]);
    expect(mails[0]!.text).toContain('secret "chat/webhooks", field "rte"');
  });

  it('never quotes what the webhook answered: the secret part of its URL reaches no e-mail, ledger entry or log', async () => {
    const secret = 'XoXb9f2Kq7LmZ1';
    const hook = await startWebhookRecorder();
    const ses = await startSesLocal();
    try {
      // The server's error echoes the secret part of its own URL, in every form a quote could take.
      hook.script({ status: 400, body: secret }, { status: 404, body: `no_service ${secret}` });
      const ledger = new LocalLedger(dir.path('secret-echo'));
      const log = recordingLog();
      const definition = parseReportDefinition({
        name: 'weekly', datasets: { risks: {} }, email: { to: ['team@example.test'], onFailure: ['owner@example.test'] },
        delivery: { channels: [{ type: 'slack', webhook: { secretId: 'chat/webhooks', key: 'a' } }, { type: 'teams', webhook: { secretId: 'chat/webhooks', key: 'b' } }] },
      });
      const urls: Record<string, string> = { a: hook.url(`slack/T000/B000/${secret}`), b: hook.url(`teams/workflows/${secret}`) };
      const results = await deliverToChannels(definition.delivery!.channels, sampleMessage(), {
        webhooks: { webhookUrl: (ref) => Promise.resolve(urls[ref.key]!) }, log, clock: fixedClock(new Date('2026-11-23T06:00:00Z')), post: { sleep: () => Promise.resolve() },
      });
      expect(results.map((r) => [r.status, r.error])).toEqual([
        ['failed', 'the Slack webhook answered 400: it refused the message'],
        ['failed', 'the Microsoft Teams webhook answered 404: the webhook may have been removed; put a new one in the secret'],
      ]);
      const mailer = new SesMailer({ client: ses.client });
      const deps = { ledger, mail: mailer, sender: 'reports@example.test', log, now: new Date('2026-11-23T06:00:00Z') };
      for (const result of results) expect(await noticeChannel(definition, result, 'run-1', deps)).toBe('told');

      const mails = await ses.fetchStore();
      expect(mails).toHaveLength(2);
      expect(mails.map((m) => m.body.text).join('\n')).toContain('answered 400');
      const ledgerFiles = await Promise.all((await readdir(dir.path('secret-echo'), { recursive: true, withFileTypes: true }))
        .filter((e) => e.isFile()).map((e) => readFile(join(e.parentPath, e.name), 'utf8')));
      expect(ledgerFiles.join('\n')).toContain('answered 404');
      for (const [where, text] of [['e-mail', JSON.stringify(mails)], ['ledger', ledgerFiles.join('\n')], ['log', JSON.stringify(log.lines)], ['results', JSON.stringify(results)]] as const) {
        expect(text, where).not.toContain(secret);
      }
    } finally {
      await Promise.all([hook.close(), ses.close()]);
    }
  });
});
