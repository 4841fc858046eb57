// @tier slow
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../../simulator/index';
import { startLambdaHarness, type LambdaHarness } from '../../support/lambda-harness';
import { lambdaContext } from '../../support/lambda-events';
import { startWebhookRecorder, type WebhookRecorder } from '../../support/webhook-recorder';
import { isOpenRiskStatus } from '../../support/open-risks';

/**
 * Alerts through the deployed export function in the local stack (s3rver, dynalite,
 * aws-ses-v2-local, the Secrets Manager stub, a recording Slack webhook), over weeks of a tenant that
 * moves: a rule's line crossed in week 2 is told of once, not again in week 3 while the figure stays
 * beyond it, and once more in week 4 after a run between found it back on the right side. The report
 * is "alerts-only", as one scheduled daily between the weekly reports would be: no report e-mail at all.
 */
const WEBHOOK_SECRET = 'alerts/webhooks';
const SLACK_PATH = 'slack/T01/B01/alert-secret-part';

type Outcome = { status: string; alerts?: { sent: boolean; reason: string; rules: { rule: string; state: string; news: number }[] }; delivery: { reason: string } };
type Mail = { subject: string; destination: { to: string[] }; body: { text?: string } };

describe('alerts when a line is crossed (local stack)', () => {
  let sim: RunningSimulator;
  let h: LambdaHarness;
  let hooks: WebhookRecorder;
  let line: number;

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    hooks = await startWebhookRecorder();
    // The line is today's count of open risks: on the line is not beyond it.
    line = sim.tenant.allRisks.filter((r) => isOpenRiskStatus(r.status.status)).length;
    const definition = {
      name: 'risk-alerts',
      title: 'Train A risks',
      datasets: { risks: {} },
      formats: ['csv'],
      email: { to: ['rte@example.test'] },
      delivery: { when: 'alerts-only', channels: [{ type: 'slack', webhook: { secretId: WEBHOOK_SECRET, key: 'rte' } }] },
      alerts: { rules: [{ figure: 'openRisks', above: line }] },
    };
    h = await startLambdaHarness({ [definition.name]: definition }, { sim });
    h.secrets.setSecret(WEBHOOK_SECRET, JSON.stringify({ rte: hooks.url(SLACK_PATH) }));
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all([sim?.close(), hooks?.close()]);
  });

  const run = (at: string) =>
    h.exportHandler({ report: 'risk-alerts', source: 'schedule', scheduledTime: at, executionId: `exec-${at}` }, lambdaContext('export-report')) as Promise<Outcome>;
  const alerts = async () => ((await h.ses.fetchStore()) as Mail[]).filter((m) => m.subject.startsWith('Alert: '));
  const closed = () => sim.tenant.allRisks.filter((r) => !isOpenRiskStatus(r.status.status));
  const openRisks = () => sim.tenant.allRisks.filter((r) => isOpenRiskStatus(r.status.status));

  it('tells of a crossing once, not while the figure stays beyond the line, and again after it came back', async () => {
    const week1 = await run('2026-11-02T06:00:00Z');
    expect(week1.status).toBe('succeeded');
    expect(week1.alerts).toMatchObject({ sent: false, rules: [{ rule: `openRisks-above-${line}`, state: 'clear', news: 0 }] });
    expect(week1.delivery.reason).toBe('not sent: delivery.when is "alerts-only" (alerts go out when a rule\'s line is crossed)');

    // Week 2: a closed risk is reopened, one open risk more than the line.
    const reopened = closed()[0]!;
    sim.advance({ risks: [{ id: reopened.id, reopen: true }] });
    const week2 = await run('2026-11-09T06:00:00Z');
    expect(week2.alerts).toMatchObject({ sent: true, reason: `sent: openRisks-above-${line} crossed (1 line)` });
    const [first] = await alerts();
    expect(first?.subject).toBe(`Alert: Train A risks: Open risks: ${line + 1}, above ${line}`);
    expect(first?.destination.to).toEqual(['rte@example.test']);
    expect(first?.body.text).toContain(`- Open risks: ${line + 1}, above ${line}`);
    expect(hooks.postsTo(SLACK_PATH)).toHaveLength(1);
    expect(hooks.postsTo(SLACK_PATH)[0]?.problems).toEqual([]);
    expect((hooks.postsTo(SLACK_PATH)[0]?.body as { text: string }).text).toBe(`Alert: Train A risks: Open risks: ${line + 1}, above ${line}`);

    // A retry of week 2's run (the same scheduled time, so the same run id) sends nothing again.
    const retry = await run('2026-11-09T06:00:00Z');
    expect(retry.alerts?.reason).toBe(`not sent again: an earlier attempt of run s-20261109T060000Z sent its alert (openRisks-above-${line})`);

    // Week 3: still beyond the line: nothing.
    const week3 = await run('2026-11-16T06:00:00Z');
    expect(week3.alerts).toMatchObject({ sent: false, rules: [{ state: 'beyond', news: 0 }] });
    expect(week3.alerts?.reason).toBe(`not sent: no line crossed since the run before (openRisks-above-${line}: still beyond its line)`);

    // A daily run between: the risk was closed again, back on the line.
    sim.advance({ risks: [{ id: reopened.id, close: true }] });
    const between = await run('2026-11-19T06:00:00Z');
    expect(between.alerts).toMatchObject({ sent: false, rules: [{ state: 'clear', news: 0 }] });

    // Week 4: another risk reopened, beyond the line again: one alert.
    sim.advance({ risks: [{ id: closed().find((r) => r.id !== reopened.id)!.id, reopen: true }] });
    expect(openRisks()).toHaveLength(line + 1);
    const week4 = await run('2026-11-23T06:00:00Z');
    expect(week4.alerts).toMatchObject({ sent: true });

    // In all: two alerts by e-mail and two on Slack, and no report e-mail ("alerts-only").
    const mail = (await h.ses.fetchStore()) as Mail[];
    expect(mail.map((m) => m.subject)).toEqual([`Alert: Train A risks: Open risks: ${line + 1}, above ${line}`, `Alert: Train A risks: Open risks: ${line + 1}, above ${line}`]);
    expect(hooks.postsTo(SLACK_PATH)).toHaveLength(2);
  });
});
