import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localJobDependencies } from '../../support/local-job';
import { RetryableExportError } from '../../../shared/core/errors';
import { silentLog } from '../../../shared/core/logger';
import { SesMailer } from '../../../shared/email/ses-mailer';
import type { OutgoingEmail } from '../../../shared/email/ses-mailer';
import type { EventPublisher } from '../../../shared/events/report-events';
import { runJob, type JobContext } from '../../../shared/job/run-job';
import { SEND_TIMEOUT_MS, claimMessage, messageRunKey, sendOnce } from '../../../shared/messages/message-claim';
import { LocalLedger } from '../../../shared/ledger/local-ledger';
import { startSimulator, type RunningSimulator } from '../../../simulator/index';
import { startSesLocal, type SesLocalHandle } from '../../support/ses-local';

const LINK_KEYS = { current: { id: 'k1', secret: 'a'.repeat(48) } };
const WEEKLY = { name: 'weekly', datasets: { risks: {} }, formats: ['csv'], email: { to: ['team@example.test'] } };
const T0 = new Date('2026-11-23T06:00:00Z');

describe('each message once per run', () => {
  let sim: RunningSimulator;
  let ses: SesLocalHandle;
  let dir: string;

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    ses = await startSesLocal();
    dir = await mkdtemp(join(tmpdir(), 'message-claim-'));
  });
  afterAll(async () => {
    await Promise.all([sim.close(), ses.close(), rm(dir, { recursive: true, force: true })]);
  });

  it('grants a claim once; a released claim, or one abandoned longer than SEND_TIMEOUT_MS, may be taken again', async () => {
    const ledger = new LocalLedger(join(dir, 'unit-ledger'));
    const run = messageRunKey('weekly', 's-1');
    const first = await claimMessage(ledger, run, 'slack', { now: T0 });
    expect(first.granted).toBe(true);
    const second = await claimMessage(ledger, run, 'slack', { now: T0 });
    expect(second).toMatchObject({ granted: false, reason: 'the slack message of run weekly/s-1 is being sent by another attempt (claimed 2026-11-23T06:00:00.000Z)' });
    // Another channel of the same run is its own message.
    expect((await claimMessage(ledger, run, 'teams', { now: T0 })).granted).toBe(true);

    await first.release();
    const retry = await claimMessage(ledger, run, 'slack', { now: T0 });
    expect(retry.granted).toBe(true);
    await retry.sent();
    const after = await claimMessage(ledger, run, 'slack', { now: new Date(T0.getTime() + 2 * SEND_TIMEOUT_MS) });
    expect(after.granted).toBe(false);
    expect(after.reason).toMatch(/^the slack message of run weekly\/s-1 was already sent/);

    const abandoned = messageRunKey('weekly', 's-2');
    expect((await claimMessage(ledger, abandoned, 'email', { now: T0 })).granted).toBe(true);
    expect((await claimMessage(ledger, abandoned, 'email', { now: new Date(T0.getTime() + SEND_TIMEOUT_MS - 1) })).granted).toBe(false);
    expect((await claimMessage(ledger, abandoned, 'email', { now: new Date(T0.getTime() + SEND_TIMEOUT_MS) })).granted).toBe(true);
  });

  it('of 8 concurrent senders of one message exactly one sends; a failed send lets the next one send', async () => {
    const ledger = new LocalLedger(join(dir, 'race-ledger'));
    const sent: number[] = [];
    const send = (i: number) => sendOnce({ ledger, runKey: 'weekly/s-9', channel: 'email', log: silentLog, now: T0 }, () => Promise.resolve(sent.push(i)));
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => send(i)));
    expect(outcomes.filter((o) => o.status === 'fulfilled' && o.value === 'sent')).toHaveLength(1);
    expect(sent).toHaveLength(1);
    // The others found it claimed and not yet marked sent: a retry, not a "sent" on a claim's word.
    const waiting = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(waiting).toHaveLength(7);
    for (const o of waiting) expect(o.reason).toBeInstanceOf(RetryableExportError);
    // Their retries find it marked sent.
    expect(await Promise.all(Array.from({ length: 7 }, (_, i) => send(i)))).toEqual(Array.from({ length: 7 }, () => 'skipped'));
    expect(sent).toHaveLength(1);

    const failing = () => Promise.reject(new Error('injected: the mail service answered 503'));
    await expect(sendOnce({ ledger, runKey: 'weekly/s-10', channel: 'email', log: silentLog, now: T0 }, failing)).rejects.toThrow(/503/);
    expect(await sendOnce({ ledger, runKey: 'weekly/s-10', channel: 'email', log: silentLog, now: T0 }, () => Promise.resolve())).toBe('sent');
  });

  it('a scheduled run retried after it e-mailed, and delivered twice more, sends one e-mail in all (aws-ses-v2-local)', async () => {
    const at = join(dir, 'job');
    const mailer = new SesMailer({ client: ses.client });
    let failEvents = 1;
    let failMail = 0;
    const events: EventPublisher = {
      publish: () => (failEvents-- > 0 ? Promise.reject(new Error('injected: the event bus answered 503')) : Promise.resolve()),
    };
    const deps: JobContext = {
      ...localJobDependencies({ dir: at, sim, reports: { weekly: WEEKLY }, clock: () => T0 }),
      events,
      mail: { send: (email: OutgoingEmail) => (failMail-- > 0 ? Promise.reject(new Error('injected: SES answered 503')) : mailer.send(email)) },
      sender: 'reports@example.test',
      links: { baseUrl: 'https://api.example.test', keys: () => Promise.resolve(LINK_KEYS) },
    };
    const deliver = async (scheduledTime: string) => {
      try {
        return (await runJob({ report: 'weekly', source: 'schedule', scheduledTime }, deps)).status;
      } catch {
        return 'failed (retrying)';
      }
    };
    // The report e-mails (the owners, here the same address, also get the failure and recovery notices,
    // and once the note that the API sends fields no column holds).
    const notice = /^Report ".*" (is failing|works again)$|: the planning API sends /;
    const mailsTo = async () => (await ses.fetchStore()).filter((m) => m.destination.to.includes('team@example.test') && !notice.test(m.subject));
    const before = (await mailsTo()).length;

    // The first attempt exports and e-mails, then fails to announce the run: the invocation is retried.
    expect(await deliver('2026-11-23T06:00:00Z')).not.toBe('succeeded');
    expect(await mailsTo()).toHaveLength(before + 1);
    expect(await deliver('2026-11-23T06:00:00Z')).toBe('succeeded');
    expect(await deliver('2026-11-23T06:00:00Z')).toBe('succeeded');
    expect(await mailsTo()).toHaveLength(before + 1);

    // A send that fails is not counted as sent: the retry of that run sends it, once.
    failMail = 1;
    expect(await deliver('2026-11-24T06:00:00Z')).not.toBe('succeeded');
    expect(await mailsTo()).toHaveLength(before + 1);
    expect(await deliver('2026-11-24T06:00:00Z')).toBe('succeeded');
    expect(await deliver('2026-11-24T06:00:00Z')).toBe('succeeded');
    const mails = await mailsTo();
    expect(mails).toHaveLength(before + 2);
    expect(mails.at(-1)!.from).toBe('reports@example.test');
  }, 60_000);
});
