import * as z from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChannelResult } from '../../../../shared/channels/deliver';
import { silentLog } from '../../../../shared/core/logger';
import type { OutgoingEmail } from '../../../../shared/email/ses-mailer';
import type { Ledger } from '../../../../shared/ledger/ledger';
import { ledgerRecord } from '../../../../shared/ledger/ledger-record';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';
import { channelNoticeKey, noticeChannel } from '../../../../shared/messages/notices/channel-notice';
import { applyNotice, type NoticeRule } from '../../../../shared/messages/notices/owner-notice';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { makeTempDir } from '../../../support/temp-dir';

const dir = makeTempDir('owner-notice');
afterAll(() => dir.remove());

/** A notice of a level: told once whenever the level changes; "none" stands for nothing told yet. */
const levelSchema = z.object({ level: z.string() });
type Level = z.infer<typeof levelSchema>;
function levelRule(ledger: Ledger, key: string): NoticeRule<Level, string, string> {
  return {
    record: ledgerRecord(ledger, key, levelSchema, { what: 'the level' }),
    transition: (previous, level) => ((previous?.level ?? 'none') === level ? undefined : { next: { level }, message: `the level is ${level}` }),
    initial: () => ({ level: 'none' }),
  };
}

/** A send that fails while `down` is true and keeps what it sent otherwise. */
function outbox() {
  const box = { down: true, sent: [] as string[] };
  const send = (message: string) => (box.down ? Promise.reject(new Error('mail is down')) : Promise.resolve(void box.sent.push(message)));
  return { box, send };
}

describe("the owners' notice engine, when a send fails", () => {
  it('does not advance the state: the next run tells', async () => {
    const ledger = new LocalLedger(dir.path('kept-back'));
    const rule = levelRule(ledger, 'notify/kept-back');
    const { box, send } = outbox();
    box.down = false;
    expect(await applyNotice(rule, 'high', send)).toEqual({ outcome: 'sent' });
    box.down = true;
    const failed = await applyNotice(rule, 'low', send);
    expect(failed).toEqual({ outcome: 'not-sent', error: new Error('mail is down') });
    // The state told before is back (written again, so its version moved on twice).
    expect(await rule.record.read()).toEqual({ value: { level: 'high' }, version: 3 });
    box.down = false;
    expect(await applyNotice(rule, 'low', send)).toEqual({ outcome: 'sent' });
    expect(await applyNotice(rule, 'low', send)).toEqual({ outcome: 'unchanged' });
    expect(box.sent).toEqual(['the level is high', 'the level is low']);
  });

  it("puts the rule's initial state back where there was none", async () => {
    const ledger = new LocalLedger(dir.path('first'));
    const rule = levelRule(ledger, 'notify/first');
    const { box, send } = outbox();
    expect((await applyNotice(rule, 'high', send)).outcome).toBe('not-sent');
    expect(await rule.record.read()).toEqual({ value: { level: 'none' }, version: 2 });
    box.down = false;
    expect(await applyNotice(rule, 'high', send)).toEqual({ outcome: 'sent' });
    expect(box.sent).toEqual(['the level is high']);
  });

  it('leaves the state of an attempt that moved on meanwhile as it is', async () => {
    const inner = new LocalLedger(dir.path('moved-on'));
    const key = 'notify/moved-on';
    // Another attempt writes its state while this one's send is failing.
    const send = async (): Promise<void> => {
      expect(await inner.put(key, { level: 'other' }, 1)).toBe(true);
      throw new Error('mail is down');
    };
    const rule = levelRule(inner, key);
    expect((await applyNotice(rule, 'high', send)).outcome).toBe('not-sent');
    expect(await rule.record.read()).toEqual({ value: { level: 'other' }, version: 2 });
  });

  it('tells the owners of a failing chat channel at the next run when the e-mail could not be sent', async () => {
    const ledger = new LocalLedger(dir.path('channel'));
    const definition = parseReportDefinition({ name: 'weekly', datasets: { risks: {} }, email: { to: ['team@example.test'], onFailure: ['owner@example.test'] } });
    const failed: ChannelResult = { type: 'slack', webhook: 'secret "chat/webhooks", field "a"', status: 'failed', error: 'the Slack webhook answered 404' };
    const mails: OutgoingEmail[] = [];
    let down = true;
    const send = (mail: OutgoingEmail) => (down ? Promise.reject(new Error('SES throttled')) : Promise.resolve(void mails.push(mail)));
    const deps = { ledger, mail: { send }, sender: 'reports@example.test', log: silentLog, now: new Date('2026-11-23T06:00:00Z') };
    expect(await noticeChannel(definition, failed, 'run-1', deps)).toBe('failed');
    expect((await ledger.get(channelNoticeKey('weekly', failed)))?.value).toMatchObject({ status: 'ok' });
    down = false;
    expect(await noticeChannel(definition, failed, 'run-2', deps)).toBe('told');
    expect(await noticeChannel(definition, failed, 'run-3', deps)).toBe('unchanged');
    expect(mails.map((m) => m.subject)).toEqual(['Report "weekly": Slack delivery is failing']);
  });
});
