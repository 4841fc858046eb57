import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExportCommand } from '../../cli/export-command';
import { silentLog } from '../../shared/core/logger';
import type { EventPublisher, ReportFailedDetail } from '../../shared/events/report-events';
import { runExportJob } from '../../shared/jobs/export-job';
import { JobStatusStore } from '../../shared/jobs/job-status';
import { PlanningApiClient, toArray } from '../../shared/planning-api';
import { parseCredentialsDocument } from '../../shared/secrets/secret-document';
import { LocalDirectoryStorage } from '../../shared/storage/local-storage';
import { sendJson, startServer, type TestServer } from '../shared/planning-api/test-server';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import { captureIo } from '../support/cli-io';

/**
 * Error text was once cut at 300 characters before the key was redacted, so a server
 * that echoes the key near the cut got (most of) it printed. The key is put at every offset around
 * the cut, and three doors are read back: the command line, the job status and ReportFailed.
 */

const KEY = 'Zq7vK2xR9mWp4TnB8cLd3YhF6gJs1QeA';
const EMAIL = 'owner@example.test';
const OTHER_SECRET = 'Hu5rT8wQ2mZk9XcV4bNp';
const BASIC = Buffer.from(`${EMAIL}:${KEY}`).toString('base64');
const OFFSETS = Array.from({ length: 61 }, (_, i) => 250 + i);

/** Every 8-character piece of `secret` that occurs in `text`. */
function leakedPieces(text: string, secret: string): string[] {
  const pieces: string[] = [];
  for (let i = 0; i + 8 <= secret.length; i += 1) {
    const piece = secret.slice(i, i + 8);
    if (text.includes(piece)) pieces.push(piece);
  }
  return pieces;
}

describe('the API key never leaks through a cut error text', () => {
  let server: TestServer;
  let dir: string;
  /** What the server puts in front of the echoed secret; set per test. */
  let echo = (): string => '';
  const document = (url: string) => ({
    email: EMAIL,
    apiKey: KEY,
    baseUrl: url,
    legacyBaseUrl: url,
    companyPrefix: 'acme',
    clientSecret: OTHER_SECRET,
  });

  beforeAll(async () => {
    // 400 is not retried: one request per export.
    server = await startServer((_request, response) => sendJson(response, 400, { errorMessages: [echo()] }));
    dir = await mkdtemp(join(tmpdir(), 'redaction-'));
    await writeFile(join(dir, 'credentials.json'), JSON.stringify(document(server.url)));
    await writeFile(join(dir, 'report.json'), JSON.stringify({ name: 'leaky', datasets: { risks: {} }, formats: ['csv'] }));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('client errors hold no piece of the key, its Basic form or another secret value at any offset', async () => {
    const credentials = parseCredentialsDocument(JSON.stringify(document(server.url)), 'test document');
    const client = new PlanningApiClient({ credentials });
    for (const secret of [KEY, `Basic ${BASIC}`, OTHER_SECRET]) {
      for (const offset of OFFSETS) {
        echo = () => `${'x'.repeat(offset)}${secret} trailing text`;
        const error = await toArray(client.listRiskRegisters()).then(
          () => undefined,
          (e: unknown) => e as Error,
        );
        expect(error?.message).toContain('answered 400');
        expect({ secret, offset, leaked: leakedPieces(error!.message, secret) }).toEqual({ secret, offset, leaked: [] });
        expect(leakedPieces(error!.message, BASIC)).toEqual([]);
      }
    }
  });

  it('the command line prints no piece of the key at any offset', async () => {
    for (const offset of OFFSETS) {
      echo = () => `${'y'.repeat(offset)}${KEY}${'z'.repeat(40)}`;
      const io = captureIo(dir);
      const code = await runExportCommand(
        ['--report', 'report.json', '--credentials', 'credentials.json', '--out', join('out', String(offset)), '--quiet'],
        io,
      );
      const printed = io.printed();
      expect(code).toBe(1);
      expect(printed).toContain('answered 400');
      expect({ offset, leaked: leakedPieces(printed, KEY) }).toEqual({ offset, leaked: [] });
    }
  });

  it('the job status error and the ReportFailed event hold no piece of the key at any offset', async () => {
    const storage = new LocalDirectoryStorage(join(dir, 'jobs'));
    const ledger = new LocalLedger(join(dir, 'jobs-ledger'));
    const jobs = new JobStatusStore(ledger);
    const failed: ReportFailedDetail[] = [];
    const events: EventPublisher = {
      publish: (type: string, detail: unknown) => {
        if (type === 'ReportFailed') failed.push(detail as ReportFailedDetail);
        return Promise.resolve();
      },
    };
    const credentials = parseCredentialsDocument(JSON.stringify(document(server.url)), 'test document');
    for (const offset of OFFSETS) {
      echo = () => `${'w'.repeat(offset)}${KEY}`;
      const exportId = `job-offset-${offset}`;
      const at = '2026-11-23T06:00:00.000Z';
      await jobs.put({ id: exportId, report: 'leaky', status: 'queued', createdAt: at, updatedAt: at });
      const outcome = await runExportJob(
        { report: 'leaky', exportId, source: 'api' },
        {
          definitions: { leaky: { name: 'leaky', datasets: { risks: {} }, formats: ['csv'] } },
          credentials: { getCredentials: () => Promise.resolve(credentials) },
          storage,
          ledger,
          jobs,
          events,
          log: silentLog,
        },
      );
      expect(outcome.status).toBe('failed');
      const status = await jobs.get(exportId);
      expect(status?.status).toBe('failed');
      expect(status?.error).toContain('answered 400');
      const event = failed.at(-1);
      expect(event?.exportId).toBe(exportId);
      const shown = `${status?.error ?? ''}\n${JSON.stringify(event)}`;
      expect({ offset, leaked: leakedPieces(shown, KEY) }).toEqual({ offset, leaked: [] });
    }
  });
});
