import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLog } from '../../../shared/core/logger';
import { EmailDeliveryError } from '../../../shared/core/errors';
import { SesMailer, type OutgoingEmail } from '../../../shared/email/ses-mailer';
import { LocalLedger } from '../../../shared/ledger/local-ledger';
import { ledgerRatePacer } from '../../../shared/ledger/rate-pacer';
import { accountMailPace, pacedMailer } from '../../../shared/messages/paced-mailer';
import { startSesLocal, type SesLocalHandle } from '../../support/ses-local';
import { startRefusingSes, type RefusingSes } from '../../support/ses-refusals';

/**
 * Mail of several runs at once through SES with a sending rate (the stand-in answers a throttle past
 * it, as SES does) to aws-ses-v2-local's store. Time is a test clock each wait moves on, so the
 * rate is counted in the clock's seconds, not this machine's.
 */
const T0 = Date.parse('2026-11-30T07:00:00Z');
let ses: SesLocalHandle;
let front: RefusingSes;
let dir: string;
let now = T0;
beforeAll(async () => {
  ses = await startSesLocal();
  front = await startRefusingSes(ses.endpoint);
  dir = await mkdtemp(join(tmpdir(), 'paced-mailer-'));
});
afterAll(async () => {
  await front.close();
  await ses.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await ses.clearStore();
  now = T0;
  front.throttled = 0;
  front.sendRate = { perSecond: 10, now: () => now };
});

/**
 * Virtual time for runs that go on together: a wait is queued, and only when every run still going is
 * waiting does the clock move, to the earliest wake, and that run alone goes on until it waits again
 * or ends. So which message reaches SES in which second of the clock does not depend on how this
 * machine interleaves the runs' requests (a clock each wait simply moved on let one run's long wait
 * carry another's sends into a later second, throttled once in a while on a busy machine).
 */
class VirtualTime {
  private readonly sleepers: { readonly wake: number; readonly order: number; readonly resolve: () => void }[] = [];
  private going = 0;
  private queued = 0;
  /** `late(n)`: how many ms past its time the n-th wait wakes (a loaded event loop); default none. */
  constructor(private readonly late: (n: number) => number = () => 0) {}
  readonly sleep = (ms: number): Promise<void> => new Promise<void>((resolve) => {
    const order = this.queued++;
    this.sleepers.push({ wake: now + Math.max(0, ms) + this.late(order), order, resolve });
    this.advance();
  });

  async together(runs: readonly (() => Promise<void>)[]): Promise<void> {
    this.going = runs.length;
    await Promise.all(runs.map(async (run) => {
      try {
        await run();
      } finally {
        this.going -= 1;
        this.advance();
      }
    }));
  }

  private advance(): void {
    if (this.sleepers.length === 0 || this.sleepers.length < this.going) return;
    this.sleepers.sort((a, b) => a.wake - b.wake || a.order - b.order);
    const next = this.sleepers.shift()!;
    now = Math.max(now, next.wake);
    next.resolve();
  }
}
const email = (to: string): OutgoingEmail => ({ from: 'reports@example.com', to: [to], subject: `Weekly for ${to}`, html: '<p>hi</p>', text: 'hi' });
const readers = (run: number) => Array.from({ length: 10 }, (_, i) => `run${run}-reader${i}@example.com`);

describe('mail paced at the account\'s sending rate', () => {
  it('mails every reader of the concurrent runs exactly once, a throttle sent again rather than failed', async () => {
    const ledger = new LocalLedger(join(dir, 'together'));
    // The pace believes 14 a second while SES takes 10 (a quota lowered, another sender): SES throttles.
    const time = new VirtualTime();
    const pace = () => Promise.resolve(ledgerRatePacer(ledger, 'pace/mail/ses', { ratePerSecond: 14, batch: 1, now: () => now, pause: time.sleep }));
    await time.together([1, 2, 3].map((run) => async () => {
      const mailer = pacedMailer(new SesMailer({ client: front.client }), { pace, now: () => now, sleep: time.sleep, log: silentLog });
      for (const reader of readers(run)) await mailer.send(email(reader));
    }));
    const mailed = (await ses.fetchStore()).map((m) => m.destination.to[0]!).sort();
    expect(mailed).toEqual([1, 2, 3].flatMap(readers).sort());
    expect(front.throttled).toBeGreaterThan(0);
  });

  it('keeps all runs under the rate SES gives, so nothing is throttled when the pace knows it', async () => {
    const ledger = new LocalLedger(join(dir, 'known'));
    const time = new VirtualTime();
    const pace = accountMailPace(ledger, () => Promise.resolve(10), { now: () => now, pause: time.sleep, log: silentLog, fallbackRate: 1 });
    await time.together([1, 2, 3].map((run) => async () => {
      const mailer = pacedMailer(new SesMailer({ client: front.client }), { pace, now: () => now, sleep: time.sleep, log: silentLog });
      for (const reader of readers(run)) await mailer.send(email(reader));
    }));
    expect(await ses.fetchStore()).toHaveLength(30);
    expect(front.throttled).toBe(0);
  });

  it('keeps the runs under the rate when their waits wake late, as on a loaded machine, so SES throttles nothing', async () => {
    const ledger = new LocalLedger(join(dir, 'late'));
    // Waits wake up to 130 ms late (the fleet bench's p99 on two loaded cores was 114 ms), against
    // moments 71 ms apart at 14 a second: a late send lands in a second other runs' moments fill.
    const LAGS = [0, 40, 120, 10, 95, 0, 60, 130, 20, 85];
    const time = new VirtualTime((n) => LAGS[n % LAGS.length]!);
    front.sendRate = { perSecond: 14, now: () => now };
    const pace = accountMailPace(ledger, () => Promise.resolve(14), { now: () => now, pause: time.sleep, log: silentLog, fallbackRate: 1 });
    const runs = Array.from({ length: 12 }, (_, i) => i + 1);
    await time.together(runs.map((run) => async () => {
      const mailer = pacedMailer(new SesMailer({ client: front.client }), { pace, now: () => now, sleep: time.sleep, log: silentLog });
      for (const reader of readers(run)) await mailer.send(email(reader));
    }));
    const mailed = (await ses.fetchStore()).map((m) => m.destination.to[0]!).sort();
    expect(mailed).toEqual(runs.flatMap(readers).sort());
    expect(front.throttled).toBe(0);
  });

  it('gives up on a message after its attempts with the retryable throttle, for the run\'s retry', async () => {
    front.sendRate = { perSecond: 0, now: () => now };
    const ledger = new LocalLedger(join(dir, 'never'));
    const time = new VirtualTime();
    const pace = () => Promise.resolve(ledgerRatePacer(ledger, 'pace/mail/ses', { ratePerSecond: 14, batch: 1, now: () => now, pause: time.sleep }));
    const mailer = pacedMailer(new SesMailer({ client: front.client }), { pace, now: () => now, sleep: time.sleep, log: silentLog, attempts: 3 });
    let error: unknown;
    await time.together([async () => { error = await mailer.send(email('someone@example.com')).catch((e: unknown) => e); }]);
    expect(error).toBeInstanceOf(EmailDeliveryError);
    expect((error as EmailDeliveryError).retryable).toBe(true);
    expect(front.throttled).toBe(3);
    expect(await ses.fetchStore()).toHaveLength(0);
  });
});
