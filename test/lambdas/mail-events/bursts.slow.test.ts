// @tier slow
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUnsubscribeToken } from '../../../shared/links/unsubscribe-token';
import { DynamoDbLedger } from '../../../shared/ledger/dynamodb-ledger';
import { SuppressionList } from '../../../shared/messages/recipients/suppressions';
import { httpApiEvent, lambdaContext } from '../../support/lambda-events';
import { LINK_KEYS, startLambdaHarness, type LambdaHarness } from '../../support/lambda-harness';

/**
 * Suppressions survive bursts (issue 42, item 2), through the deployed handlers against dynalite:
 * a hundred readers' mail clients POST their one-click unsubscribe at once (export-api), and a dead
 * domain bounces a hundred messages at once (a hundred mail-events invocations). Every one is
 * recorded, every POST is answered 200, and the owners get ONE e-mail for the burst naming all.
 * (On main, one ledger item per report changed by compare-and-swap lost most of them.)
 */
const RECIPIENTS = Array.from({ length: 100 }, (_, i) => `reader${String(i).padStart(2, '0')}@example.test`);
const WEEKLY = {
  name: 'weekly',
  title: 'Weekly',
  datasets: { risks: {} },
  formats: ['csv'],
  email: { to: RECIPIENTS.slice(0, 50), cc: RECIPIENTS.slice(50), onFailure: ['owner@example.test'] },
};
const NOW = new Date('2026-11-23T07:00:00Z');

/** An SES permanent bounce of one report message, as EventBridge hands it to mail-events. */
function bounceEvent(address: string, i: number) {
  return {
    version: '0',
    id: `0000000${i}-bounce`,
    'detail-type': 'Email Bounced',
    source: 'aws.ses',
    account: '123456789012',
    time: NOW.toISOString(),
    region: 'us-east-1',
    resources: [],
    detail: {
      eventType: 'Bounce',
      mail: { tags: { report: ['weekly'], 'ses:configuration-set': ['stack-report-mail'] }, destination: [address] },
      bounce: { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: address }] },
    },
  };
}

describe('bursts of unsubscribes and bounces', () => {
  let h: LambdaHarness;
  let list: SuppressionList;
  beforeAll(async () => {
    h = await startLambdaHarness({ weekly: WEEKLY });
    list = new SuppressionList(new DynamoDbLedger({ tableName: h.dynamo.tableName, client: h.dynamo.client }));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('records 100 simultaneous one-click unsubscribes, each answered 200, and 20 repeats of one', async () => {
    const post = (address: string) => {
      const token = createUnsubscribeToken({ report: 'weekly', address }, LINK_KEYS.current, new Date());
      const event = httpApiEvent('POST', 'POST /unsubscribe/{token}', `/unsubscribe/${token}`, { pathParameters: { token }, body: 'List-Unsubscribe=One-Click' });
      return h.apiHandler(event, lambdaContext('export-api'));
    };
    const answers = await Promise.all([...RECIPIENTS.map(post), ...Array.from({ length: 20 }, () => post(RECIPIENTS[0]!))]);
    expect(answers.map((a) => a.statusCode)).toEqual(answers.map(() => 200));
    const recorded = await list.of('weekly', RECIPIENTS);
    expect(Object.keys(recorded).sort()).toEqual(RECIPIENTS);
    expect(new Set(Object.values(recorded).map((s) => s.reason))).toEqual(new Set(['unsubscribed']));
    // The owner e-mails them all again, for the bounces below.
    expect(new Set(await Promise.all(RECIPIENTS.map((address) => list.lift('weekly', address, NOW))))).toEqual(new Set(['lifted']));
  });

  it('records 100 simultaneous permanent bounces and tells the owners once, naming every address', async () => {
    await h.ses.clearStore();
    const { mailEventsHandler } = await import('../../../lambdas/mail-events/handler');
    // The invocation that tells the owners waits until every other has returned (or waits too): the burst, settled.
    let finished = 0;
    let waiting = 0;
    let settled!: () => void;
    const burst = new Promise<void>((resolve) => (settled = resolve));
    const check = () => finished + waiting >= RECIPIENTS.length && settled();
    const handler = mailEventsHandler(() => {
      waiting += 1;
      check();
      return burst;
    });
    const outcomes = await Promise.all(
      RECIPIENTS.map((address, i) =>
        handler(bounceEvent(address, i), lambdaContext('mail-events')).finally(() => {
          finished += 1;
          check();
        }),
      ),
    );
    expect(outcomes.flatMap((o) => o.suppressed).sort()).toEqual(RECIPIENTS);
    expect(outcomes.flatMap((o) => o.told ?? []).sort()).toEqual(RECIPIENTS);
    const recorded = await list.of('weekly', RECIPIENTS);
    expect(Object.keys(recorded).sort()).toEqual(RECIPIENTS);
    expect(Object.values(recorded).every((s) => s.reason === 'bounced' && s.toldAt !== undefined)).toBe(true);

    const notices = (await h.ses.fetchStore()).filter((m) => m.destination.to.includes('owner@example.test'));
    expect(notices.map((m) => m.subject)).toEqual(['Weekly: 100 recipients are no longer e-mailed']);
    for (const address of RECIPIENTS) expect(notices[0]?.body.text).toContain(`npm run reports -- resubscribe weekly ${address}\n`);

    // The same burst delivered again (EventBridge retries) tells nobody again.
    const again = await Promise.all(RECIPIENTS.slice(0, 10).map((address, i) => handler(bounceEvent(address, i), lambdaContext('mail-events'))));
    expect(again.flatMap((o) => [...o.suppressed, ...(o.told ?? [])])).toEqual([]);
    expect((await h.ses.fetchStore()).filter((m) => m.destination.to.includes('owner@example.test'))).toHaveLength(1);
  });
});
