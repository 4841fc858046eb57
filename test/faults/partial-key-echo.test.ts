import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExportCommand } from '../../cli/export-command';
import type { ReportFailedDetail } from '../../shared/events/report-events';
import { runJob } from '../../shared/job/run-job';
import { parseCredentialsDocument } from '../../shared/secrets/secret-document';
import { captureIo } from '../support/cli-io';
import { useMailedJobs } from '../support/mailed-jobs';
import { sendText, startServer, type TestServer } from '../shared/planning-api/test-server';

/**
 * Before: a 401 whose body echoed the first 75 % (or 50 %) of the API key
 * (`invalid api key 'sim-K'e"y<&>/ +=é%2FÆ...'`) reached stderr, the job status, the ReportFailed event
 * and the owners' e-mail; only the whole key, in any spelling, was redacted. Now no run of 8 characters
 * of the key (or of the spelling echoed) leaves through any of the four.
 */

/** The run the redaction promises to catch (core/redaction.ts PART_RUN). */
const RUN = 8;
const KEY = 'sim-K\'e"y<&>/ +=é%2FÆ-q7vR2xW9mTp4nB8cLd3Yh';
const CHARS = [...KEY];
const PARTS = { '75 %': CHARS.slice(0, Math.floor(CHARS.length * 0.75)).join(''), '50 %': CHARS.slice(0, CHARS.length / 2).join('') };
const SPELLINGS: Record<string, (k: string) => string> = {
  raw: (k) => k,
  'URL-encoded': encodeURIComponent,
  'JSON-escaped': (k) => JSON.stringify(k).slice(1, -1),
  'HTML-escaped': (k) => k.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
  'lower-cased': (k) => k.toLowerCase(),
  base64: (k) => Buffer.from(k).toString('base64'),
};
const REPORT = { name: 'leaky', title: 'Leaky', datasets: { risks: {} }, formats: ['csv'], email: { to: ['team@example.test'], onFailure: ['owner@example.test'] } };

/** Every RUN-character piece of `secret` found in `text`. */
function leakedPieces(text: string, secret: string): string[] {
  return Array.from({ length: Math.max(0, secret.length - RUN + 1) }, (_, i) => secret.slice(i, i + RUN)).filter((p) => text.includes(p));
}

describe('a partial echo of the API key in a 401', () => {
  const kit = useMailedJobs('partial-echo-');
  let server: TestServer;
  let dir: string;
  let echoed = '';
  const document = () => ({ email: 'owner@example.test', apiKey: KEY, baseUrl: server.url, legacyBaseUrl: server.url, companyPrefix: 'acme' });

  beforeAll(async () => {
    server = await startServer((_request, response) => sendText(response, 401, `invalid api key '${echoed}...'`));
    dir = await mkdtemp(join(tmpdir(), 'partial-echo-cli-'));
    await writeFile(join(dir, 'credentials.json'), JSON.stringify(document()));
    await writeFile(join(dir, 'report.json'), JSON.stringify({ name: 'leaky', datasets: { risks: {} }, formats: ['csv'] }));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const cases = Object.entries(PARTS).flatMap(([share, part]) => Object.entries(SPELLINGS).map(([name, spell]) => [`${share}, ${name}`, part, spell(part)] as const));

  it.each(cases)('%s: neither stderr, the job status, ReportFailed nor the owners\' e-mail holds a piece of it', async (label, part, spelled) => {
    echoed = spelled;
    const io = captureIo(dir);
    expect(await runExportCommand(['--report', 'report.json', '--credentials', 'credentials.json', '--out', 'out', '--quiet'], io)).toBe(1);
    const printed = io.printed();
    expect(printed).toContain('invalid api key');

    const failed: ReportFailedDetail[] = [];
    const credentials = parseCredentialsDocument(JSON.stringify(document()), 'test document');
    const base = kit.deps({ leaky: REPORT }, () => new Date('2026-11-23T06:00:00Z'));
    const exportId = `job-echo-${cases.findIndex(([l]) => l === label)}`;
    await base.jobs.put({ id: exportId, report: 'leaky', status: 'queued', createdAt: '2026-11-23T06:00:00Z', updatedAt: '2026-11-23T06:00:00Z' });
    const outcome = await runJob(
      { report: 'leaky', exportId, source: 'api' },
      {
        ...base,
        planning: { ...base.planning, credentials: { getCredentials: () => Promise.resolve(credentials) } },
        events: { publish: (type, detail) => Promise.resolve(void (type === 'ReportFailed' && failed.push(detail as ReportFailedDetail))) },
      },
    );
    expect(outcome.status).toBe('failed');
    const status = await base.jobs.get(exportId);
    expect(status?.error).toContain('invalid api key');
    expect(failed).toHaveLength(1);
    // The owners are told of a scheduled run's failure.
    const scheduled = await runJob({ report: 'leaky', source: 'schedule', scheduledTime: '2026-11-23T06:00:00Z' }, { ...base, planning: { ...base.planning, credentials: { getCredentials: () => Promise.resolve(credentials) } } });
    expect(scheduled.status).toBe('failed');
    const owners = await kit.mailsTo('owner@example.test');
    expect(owners).toHaveLength(1);
    const mail = `${owners[0]!.subject}\n${owners[0]!.body.text ?? ''}\n${owners[0]!.body.html ?? ''}`;
    expect(mail).toContain('invalid api key');

    for (const [door, text] of [['stderr', printed], ['job status', status?.error ?? ''], ['ReportFailed', JSON.stringify(failed)], ['mail', mail]] as const) {
      const leaks = [...leakedPieces(text, spelled), ...leakedPieces(text, part), ...leakedPieces(text.toLowerCase(), part.toLowerCase())];
      expect({ door, leaks }).toEqual({ door, leaks: [] });
    }
  });
});
