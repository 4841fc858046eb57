import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../../shared/core/clock';
import { runJob, type JobContext } from '../../../shared/job/run-job';
import { TWO_LANGUAGE_READERS, twoLanguageReport, useMailedJobs } from '../../support/mailed-jobs';
import { startWebhookRecorder, type WebhookRecorder } from '../../support/webhook-recorder';

/**
 * The language follows the reader (issue 49, item 3): one run of a report whose recipients name
 * their own locale sends each an e-mail in their language, with the same figures written by their
 * locale, `lang` the words' language; a chat channel with its own locale posts in it. Read from
 * aws-ses-v2-local's store and a recorded Slack webhook.
 */
const SLACK = 'slack/T01/B01/fr-channel';
const jobs = useMailedJobs('reader-languages-');
let hooks: WebhookRecorder;
beforeAll(async () => {
  hooks = await startWebhookRecorder();
});
afterAll(() => hooks.close());

const REPORT = twoLanguageReport(
  { delivery: { channels: [{ type: 'slack', webhook: { secretId: 'hooks', key: 'rte' }, locale: 'fr-FR' }] } },
  [...TWO_LANGUAGE_READERS, 'plain@example.test'],
);

/** The headline figures of a text part, by the labels of its language, as numbers. */
function figures(text: string, labels: readonly string[]): number[] {
  return labels.map((label) => {
    const match = new RegExp(`^  ${label}: ([\\d.,]+)`, 'm').exec(text);
    if (!match) throw new Error(`no "${label}" in\n${text}`);
    return Number(match[1]!.replace(/[.,]/g, ''));
  });
}

describe('recipients with their own locale', () => {
  it('each get the e-mail in their language with identical figures; a channel posts in its own', async () => {
    const at = '2026-11-23T06:00:00Z';
    const deps: JobContext = {
      ...jobs.deps({ [REPORT.name]: REPORT }, fixedClock(new Date(at))),
      channels: { webhooks: { webhookUrl: () => Promise.resolve(hooks.url(SLACK)) }, post: { sleep: () => Promise.resolve() } },
    };
    const outcome = await runJob({ report: REPORT.name, source: 'schedule', scheduledTime: at }, deps);
    expect(outcome.status).toBe('succeeded');
    const [english] = await jobs.mailsTo('anna@example.test');
    const [german] = await jobs.mailsTo('jonas@example.test');
    const [plain] = await jobs.mailsTo('plain@example.test');
    expect(english?.body.html).toMatch(/<html lang="en-GB">/);
    expect(german?.body.html).toMatch(/<html lang="de-DE">/);
    expect(plain?.body.html).toMatch(/<html lang="en-GB">/);
    const en = figures(english!.body.text!, ['Open risks', 'Open high or critical risks', 'Overdue risks']);
    const de = figures(german!.body.text!, ['Offene Risiken', 'Offene hohe oder kritische Risiken', 'Überfällige Risiken']);
    expect(de).toEqual(en);
    expect(en[0]).toBeGreaterThan(0);
    expect(german!.body.text).toContain('Handlungsbedarf');
    expect(german!.body.text).toContain('Weitere Dateien');
    expect(german!.body.text).not.toMatch(/Open risks|Needs attention|Other files/);
    expect(english!.body.text).toContain('Needs attention');
    // A plain address reads the report's language: the English e-mail, but for its own unsubscribe link.
    const withoutLinks = (text: string) => text.replace(/\/unsubscribe\/\S+/g, '/unsubscribe/…');
    expect(withoutLinks(plain!.body.text!)).toBe(withoutLinks(english!.body.text!));
    const post = hooks.postsTo(SLACK)[0]?.body as { text: string; blocks: unknown[] };
    expect(post.text).toContain('Risques ouverts');
    expect(JSON.stringify(post.blocks)).not.toMatch(/Open risks/);
  }, 60_000);
});
