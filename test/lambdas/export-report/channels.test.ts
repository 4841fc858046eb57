// @tier slow
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReportsCommand } from '../../../cli/reports-command';
import { captureIo } from '../../support/cli-io';
import { DEFINITIONS_BUCKET, startLambdaHarness, type LambdaHarness } from '../../support/lambda-harness';
import { httpApiEvent, lambdaContext } from '../../support/lambda-events';
import { startWebhookRecorder, type WebhookRecorder } from '../../support/webhook-recorder';

/**
 * Chat delivery end to end in the local stack: the export handler with s3rver, dynalite,
 * aws-ses-v2-local, the Secrets Manager stub holding the webhook URLs, and recording Slack and Teams
 * webhooks that check every payload.
 */
const WEBHOOK_SECRET = 'chat/webhooks';
const channels = (slackKey: string) => [
  { type: 'slack', webhook: { secretId: WEBHOOK_SECRET, key: slackKey } },
  { type: 'teams', webhook: { secretId: WEBHOOK_SECRET, key: 'rte-teams' } },
];
const WEEKLY = {
  name: 'weekly',
  title: 'Weekly risks',
  datasets: { risks: {}, okrs: {} },
  formats: ['xlsx'],
  email: { to: ['team@example.test'] },
  delivery: { when: 'changed', channels: channels('rte-slack') },
};
const SPLIT = {
  name: 'split',
  datasets: { risks: {} },
  formats: ['xlsx'],
  email: { to: ['team@example.test'], onFailure: ['owner@example.test'] },
  delivery: { channels: channels('new-slack') },
};

type Outcome = { status: string; delivery: { sent: boolean; reason: string; channels: { type: string; status: string; error?: string }[] } };
type SlackBlock = { type: string; text?: { text: string }; elements?: { url?: string }[] };
type Card = { body: { facts?: { title: string; value: string }[] }[]; actions: { title: string; url: string }[] };

const scheduled = (h: LambdaHarness, report: string, at: string) =>
  h.exportHandler({ report, source: 'schedule', scheduledTime: at, executionId: `exec-${at}` }, lambdaContext('export-report')) as Promise<Outcome>;

describe('Slack and Teams delivery beside e-mail (local stack)', () => {
  let h: LambdaHarness;
  let hooks: WebhookRecorder;
  const slackPath = 'slack/T01/B01/slack-secret-part';
  const teamsPath = 'teams/workflows/teams-secret-part';

  beforeAll(async () => {
    hooks = await startWebhookRecorder();
    h = await startLambdaHarness({ weekly: WEEKLY, split: SPLIT });
    h.secrets.setSecret(WEBHOOK_SECRET, JSON.stringify({ 'rte-slack': hooks.url(slackPath), 'rte-teams': hooks.url(teamsPath) }));
  });
  afterAll(async () => {
    await h?.close();
    await hooks?.close();
  });

  it('delivers one run to e-mail, Slack and Teams with the same headline figures and a working workbook button', async () => {
    const outcome = await scheduled(h, 'weekly', '2026-11-23T06:00:00Z');
    expect(outcome.status).toBe('succeeded');
    expect(outcome.delivery).toEqual({
      sent: true,
      emailed: true,
      written: [],
      reason: 'sent: there is no earlier run to compare with (delivery.when is "changed")',
      channels: [
        { type: 'slack', webhook: 'secret "chat/webhooks", field "rte-slack"', status: 'sent' },
        { type: 'teams', webhook: 'secret "chat/webhooks", field "rte-teams"', status: 'sent' },
      ],
    });
    const mail = (await h.ses.fetchStore()).filter((m) => m.subject.startsWith('Weekly risks'));
    expect(mail).toHaveLength(1);
    const [slack] = hooks.postsTo(slackPath);
    const [teams] = hooks.postsTo(teamsPath);
    expect(slack?.problems).toEqual([]);
    expect(teams?.problems).toEqual([]);

    const card = (teams!.body as { attachments: { content: Card }[] }).attachments[0]!.content;
    const facts = card.body.flatMap((e) => e.facts ?? []);
    const slackText = (slack!.body as { blocks: SlackBlock[] }).blocks.map((b) => b.text?.text ?? '').join('\n');
    const emailText = mail[0]!.body.text ?? '';
    const open = h.sim.tenant.allRisks.filter((r) => !['Mitigated', 'Closed'].includes(r.status.status)).length;
    expect(facts).toContainEqual({ title: 'Open risks', value: String(open) });
    expect(facts.length).toBeGreaterThan(3);
    for (const fact of facts) {
      expect(slackText).toContain(`${fact.title}: *${fact.value}*`);
      expect(emailText).toContain(`${fact.title}: ${fact.value}`);
    }
    const note = 'This is the first run of this report, so there is nothing to compare with yet.';
    expect(slackText).toContain(`*What changed*\n${note}`);
    expect(emailText).toContain(note);

    // The workbook button of each channel is a link the link route turns into the workbook.
    const slackButton = (slack!.body as { blocks: SlackBlock[] }).blocks.find((b) => b.type === 'actions')!.elements![0]!.url!;
    const teamsButton = card.actions.find((a) => a.title === 'Open the workbook')!.url;
    for (const url of [slackButton, teamsButton]) {
      const token = url.replace('https://api.example.test/links/', '');
      const response = await h.apiHandler(httpApiEvent('GET', 'GET /links/{token}', `/links/${token}`, { pathParameters: { token } }), lambdaContext('export-api'));
      expect(response.statusCode).toBe(302);
      expect(String(response.headers!.location)).toContain('weekly.xlsx');
    }
    expect(card.actions.map((a) => a.title)).toEqual(['Open the workbook', 'Get a fresh copy now']);
  });

  it('with delivery.when "changed", sends nothing for an unchanged second run and says why', async () => {
    const mailsBefore = (await h.ses.fetchStore()).length;
    const postsBefore = hooks.posts.length;
    const outcome = await scheduled(h, 'weekly', '2026-11-30T06:00:00Z');
    expect(outcome.status).toBe('succeeded');
    expect(outcome.delivery).toEqual({
      sent: false,
      emailed: false,
      written: [],
      reason: 'not sent: nothing changed since run s-20261123T060000Z and delivery.when is "changed"',
      channels: [],
    });
    // The event downstream run lists read says the same.
    const exported = h.events.events.filter((e) => e.DetailType === 'ReportExported').map((e) => JSON.parse(e.Detail) as { runId: string; delivery: unknown });
    expect(exported.find((d) => d.runId === 's-20261130T060000Z')?.delivery).toEqual({ sent: false, reason: outcome.delivery.reason, channels: [] });
    expect(exported.find((d) => d.runId === 's-20261123T060000Z')?.delivery).toEqual({
      sent: true,
      reason: expect.stringMatching(/^sent: /),
      channels: [{ type: 'slack', status: 'sent' }, { type: 'teams', status: 'sent' }],
    });
    expect((await h.ses.fetchStore()).length).toBe(mailsBefore);
    expect(hooks.posts.length).toBe(postsBefore);
    // The export itself ran and was kept.
    const listed = await h.s3.client.send(new ListObjectsV2Command({ Bucket: h.s3.bucket, Prefix: 'reports/weekly/dt=2026-11-30/' }));
    expect((listed.Contents ?? []).map((o) => o.Key)).toContain('reports/weekly/dt=2026-11-30/run=s-20261130T060000Z/manifest.json');
    // Its manifest says why its message was not sent.
    const stored = await h.s3.client.send(new GetObjectCommand({ Bucket: h.s3.bucket, Key: 'reports/weekly/dt=2026-11-30/run=s-20261130T060000Z/manifest.json' }));
    const manifest = JSON.parse(await stored.Body!.transformToString()) as { delivery?: unknown };
    expect(manifest.delivery).toEqual({ send: false, when: 'changed', reason: outcome.delivery.reason });

    // And the run list (npm run reports -- list, against the stack's buckets and ledger) says so.
    const io = captureIo(process.cwd(), { ...(process.env as Record<string, string>) });
    const code = await runReportsCommand(
      ['list', '--bucket', DEFINITIONS_BUCKET, '--reports-bucket', h.s3.bucket, '--ledger-table', h.dynamo.tableName],
      io,
      { now: () => new Date('2026-11-30T07:00:00Z') },
    );
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    expect(io.out()).toMatch(
      /^weekly — Weekly risks\n {2}schedule {2}on demand\n {2}last run {2}\S+ \(s-20261130T060000Z\): succeeded; not sent: nothing changed since run s-20261123T060000Z and delivery\.when is "changed"(?:; \d+ served fields are in no column or of an unexpected shape \(see the manifest\))?$/m,
    );
  });

  it('keeps e-mail and Teams going when Slack fails, tells the owners once per streak, and again when it works', async () => {
    const notices = async () => (await h.ses.fetchStore()).filter((m) => m.subject.startsWith('Report "split"')).map((m) => m.subject);
    const teamsBefore = hooks.postsTo(teamsPath).length;
    for (const at of ['2026-11-23T07:00:00Z', '2026-11-24T07:00:00Z']) {
      const outcome = await scheduled(h, 'split', at);
      expect(outcome.delivery.sent).toBe(true);
      expect(outcome.delivery.channels).toEqual([
        { type: 'slack', webhook: 'secret "chat/webhooks", field "new-slack"', status: 'failed', error: 'secret "chat/webhooks" has no field "new-slack"' },
        { type: 'teams', webhook: 'secret "chat/webhooks", field "rte-teams"', status: 'sent' },
      ]);
    }
    expect(hooks.postsTo(teamsPath).length).toBe(teamsBefore + 2);
    // The readers' two reports (the owners' one notice of served fields no column holds aside).
    expect((await h.ses.fetchStore()).filter((m) => m.subject.startsWith('split') && !m.subject.includes('sends fields')).length).toBe(2);
    expect(await notices()).toEqual(['Report "split": Slack delivery is failing']);
    const failing = (await h.ses.fetchStore()).find((m) => m.subject === 'Report "split": Slack delivery is failing')!;
    expect(failing.destination.to).toEqual(['owner@example.test']);
    expect(failing.body.text).not.toContain('secret-part');

    h.secrets.setSecret(WEBHOOK_SECRET, JSON.stringify({ 'rte-slack': hooks.url(slackPath), 'new-slack': hooks.url(slackPath), 'rte-teams': hooks.url(teamsPath) }));
    const recovered = await scheduled(h, 'split', '2026-11-25T07:00:00Z');
    expect(recovered.delivery.channels.map((c) => c.status)).toEqual(['sent', 'sent']);
    expect(await notices()).toEqual(['Report "split": Slack delivery is failing', 'Report "split": Slack delivery works again']);
    expect(JSON.stringify(recovered)).not.toContain('secret-part');
  });
});
