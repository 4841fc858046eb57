// @tier slow
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runDemoCommand } from '../../cli/demo-command';
import { OUTBOX_SENDER } from '../../cli/export-command';
import { LOCAL_API_URL } from '../../cli/local-link-keys';
import { startSimulator, type RunningSimulator } from '../../simulator/index';
import { captureIo } from '../support/cli-io';
import { startLambdaHarness, type LambdaHarness } from '../support/lambda-harness';
import { lambdaContext } from '../support/lambda-events';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { startWebhookRecorder, type WebhookRecorder } from '../support/webhook-recorder';

/**
 * One run, one path: the demo (the command line with an outbox) and the deployed export function
 * (here the Lambda harness, every AWS stand-in local) run the same job for the same run, and the demo's
 * files are byte for byte what the function hands to SES and the webhooks. Both read one simulator,
 * at one fixed time, under one run id; the function's clock is the real one, so the test fixes Date.
 */
const TODAY = new Date('2026-11-26T09:00:00Z');
const RUN_ID = 's-20261126T090000Z';
const RUN_FOLDER = join('demo-weekly', 'dt=2026-11-26', `run=${RUN_ID}`);
const SLACK_PATH = 'slack/T0DEMO/B0DEMO/demo-secret';
const TEAMS_PATH = 'teams/workflows/demo-secret';

describe('the demo writes what a deployed stack sends', () => {
  let sim: RunningSimulator;
  let dir: TempDir;
  let h: LambdaHarness | undefined;
  let hooks: WebhookRecorder;

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'demo', flavour: 'demo', today: TODAY });
    hooks = await startWebhookRecorder();
    dir = makeTempDir('demo-delivery');
  });
  afterAll(async () => {
    vi.useRealTimers();
    await h?.close();
    await Promise.all([sim.close(), hooks.close()]);
    dir.remove();
  });

  it('e-mail (subject, sender, recipients, text and HTML), Slack and Teams, byte for byte', async () => {
    const io = captureIo(dir.root);
    const code = await runDemoCommand(['--out', 'out'], io, { today: TODAY, ids: { newRunId: () => RUN_ID }, simulator: sim });
    expect({ code, err: io.err() }).toEqual({ code: 0, err: '' });
    const folder = dir.path(join('out', RUN_FOLDER));
    const demo = {
      html: await readFile(join(folder, 'email.html'), 'utf8'),
      mail: await simpleParser(await readFile(join(folder, 'email.eml'))),
      slack: await readFile(join(folder, 'slack.json'), 'utf8'),
      teams: await readFile(join(folder, 'teams.json'), 'utf8'),
    };

    // The deployed function, scheduled at the demo's time, with the demo's sender and link keys.
    vi.useFakeTimers({ toFake: ['Date'], now: TODAY });
    const definition = JSON.parse(await readFile(join(import.meta.dirname, '..', '..', 'examples', 'demo-report.json'), 'utf8')) as { name: string };
    h = await startLambdaHarness({ [definition.name]: definition }, { sim, env: { LINK_BASE_URL: LOCAL_API_URL, MAIL_FROM: OUTBOX_SENDER } });
    h.secrets.setSecret('demo/chat-webhooks', JSON.stringify({ slack: hooks.url(SLACK_PATH), teams: hooks.url(TEAMS_PATH) }));
    const outcome = (await h.exportHandler({ report: definition.name, source: 'schedule', scheduledTime: TODAY.toISOString() }, lambdaContext('export-report'))) as {
      status: string;
      runId: string;
    };
    vi.useRealTimers();
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: 'succeeded', runId: RUN_ID });

    // The demo's definition names alert rules its tenant crosses (examples/demo-report.json): its reader and
    // channels are told in the weekly message (one message per reader per run), with no separate alert.
    const store = await h.ses.fetchStore();
    // The report's reader and the two people it names (each with their own actions), one message each.
    expect(store.map((m) => m.destination.to).sort()).toEqual([['priya.natarajan@example.invalid'], ['rte@example.invalid'], ['soren.nielsen@example.invalid']]);
    const sent = store.find((m) => m.destination.to?.[0] === 'rte@example.invalid');
    expect(sent).toBeDefined();
    for (const person of store.filter((m) => m !== sent)) {
      const address = person.destination.to[0]!;
      expect(person.body.html, address).toBe(await readFile(join(folder, `email-${address}.html`), 'utf8'));
      expect(person.body.text, address).toBe((await simpleParser(await readFile(join(folder, `email-${address}.eml`)))).text);
    }
    expect(sent!.body.text).toMatch(/Lines crossed\n {2}Open high or critical risks: \d+ — above your line of 29/);
    expect(sent!.body.html).toBe(demo.html);
    expect(sent!.body.text).toBe(demo.mail.text);
    expect(sent!.subject).toBe(demo.mail.subject);
    expect(sent!.from).toBe(demo.mail.from?.text);
    expect(sent!.destination.to).toEqual(['rte@example.invalid']);
    expect(demo.mail.subject).toBe('Demo company – weekly planning report – 26/11/2026');
    // The e-mail shows what a reader needs: the figures, what needs attention, links that sign the run's files.
    expect(demo.html).toContain('Needs attention');
    expect(demo.html).toContain(`${LOCAL_API_URL}/links/`);

    // One-click unsubscribe (RFC 8058), this recipient's own link, in the message SES got and in the demo's .eml alike.
    const listUnsubscribe = sent!.headers?.find((h) => h.name === 'List-Unsubscribe')?.value;
    expect(listUnsubscribe).toMatch(new RegExp(`^<${LOCAL_API_URL.replaceAll('.', '\\.')}/unsubscribe/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+>$`));
    expect(sent!.headers?.find((h) => h.name === 'List-Unsubscribe-Post')?.value).toBe('List-Unsubscribe=One-Click');
    const eml = await readFile(join(folder, 'email.eml'), 'utf8');
    expect(eml).toContain(`\r\nList-Unsubscribe: ${listUnsubscribe!}\r\n`);
    expect(eml).toContain('\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n');
    expect(demo.html).toContain(listUnsubscribe!.slice(1, -1));

    expect(hooks.postsTo(SLACK_PATH).map((p) => p.raw)).toEqual([demo.slack]);
    expect(hooks.postsTo(TEAMS_PATH).map((p) => p.raw)).toEqual([demo.teams]);
    expect(hooks.posts.flatMap((p) => p.problems)).toEqual([]);
  });
});
