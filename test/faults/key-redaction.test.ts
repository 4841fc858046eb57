import { catalogOf } from '../../shared/definitions/catalog';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runExportCommand } from '../../cli/export-command';
import { silentLog } from '../../shared/core/logger';
import type { EventPublisher, ReportFailedDetail } from '../../shared/events/report-events';
import { runJob } from '../../shared/job/run-job';
import { runContextOf } from '../../shared/report/run/context';
import { fixedClock } from '../../shared/core/clock';
import { JobStatusStore } from '../../shared/job/status/job-status';
import { toArray } from '../../shared/planning-api';
import { parseCredentialsDocument } from '../../shared/secrets/secret-document';
import { LocalDirectoryStorage } from '../../shared/storage/local-storage';
import { sendJson, startServer, type TestServer } from '../shared/planning-api/test-server';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import { captureIo } from '../support/cli-io';
import { planningClient } from '../support/planning-client';
import { MAX_ERROR_TEXT } from '../../shared/planning-api/transport/http-transport';

/**
 * Error text was once cut at 300 characters before the key was redacted, so a server
 * that echoes the key near the cut got (most of) it printed. The key is put at every offset around
 * the cut for the client's error, and at one offset of each kind of cut place (cutClasses) for the
 * doors that run a whole export: the command line, the job status and ReportFailed.
 */

const KEY = 'Zq7vK2xR9mWp4TnB8cLd3YhF6gJs1QeA';
const EMAIL = 'owner@example.test';
const OTHER_SECRET = 'Hu5rT8wQ2mZk9XcV4bNp';
const BASIC = Buffer.from(`${EMAIL}:${KEY}`).toString('base64');
const OFFSETS = Array.from({ length: 61 }, (_, i) => 250 + i);
/** Characters of error text kept before the ellipsis: a secret echoed at `offset` keeps `CUT - offset` of its characters. */
const CUT = MAX_ERROR_TEXT - 1;
/** A multi-character escape an encoding writes for one character (`&amp;`, `&#39;`, `%2F`, `\\"`). */
const ESCAPE = /&#?\w+;|%[0-9A-F]{2}|\\./g;

/**
 * The offsets (of OFFSETS) at which a cut falls at a different kind of place in `echoed`: past it
 * (wholly cut off, or cut just before it), inside its first 8 characters (too short a piece to
 * find) and just after them, in its middle, at its end (one short, exact, one past), wholly before
 * the cut, and before, inside and after each escape it holds. The in-process client tests keep
 * every offset; the doors that run a whole export (the command line, the job) take one of each kind.
 */
function cutClasses(echoed: string): number[] {
  const escapes = [...echoed.matchAll(ESCAPE)].flatMap((m) => [m.index, m.index + 1, m.index + m[0].length]);
  const kept = [-11, 0, 1, 7, 8, Math.floor(echoed.length / 2), echoed.length - 1, echoed.length, echoed.length + 1, 49, ...escapes];
  return OFFSETS.filter((offset) => kept.includes(CUT - offset));
}

/** The key HTML-escaped, `'` written as `apostrophe` (escapers differ in whether and how they escape it). */
function htmlWithApostrophe(key: string, apostrophe: string): string {
  return key.replace(/[&<>"']/g, (c) => (c === "'" ? apostrophe : { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c] ?? c));
}

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
  /** How it is echoed: in a 400's error text, or in the `total` of a 200 list answer. */
  let mode: 'error-400' | 'total-200' = 'error-400';
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
    server = await startServer((_request, response) =>
      mode === 'error-400'
        ? sendJson(response, 400, { errorMessages: [echo()] })
        : sendJson(response, 200, { startAt: 0, pageLimit: 100, total: echo(), data: [] }),
    );
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
    const client = planningClient({ credentials });
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

  it('the command line prints no piece of the key wherever the cut falls', async () => {
    for (const offset of cutClasses(KEY)) {
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

  it('the job status error and the ReportFailed event hold no piece of the key wherever the cut falls', async () => {
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
    for (const offset of cutClasses(KEY)) {
      echo = () => `${'w'.repeat(offset)}${KEY}`;
      const exportId = `job-offset-${offset}`;
      const at = '2026-11-23T06:00:00.000Z';
      await jobs.put({ id: exportId, report: 'leaky', status: 'queued', createdAt: at, updatedAt: at });
      const outcome = await runJob(
        { report: 'leaky', exportId, source: 'api' },
        {
          definitions: catalogOf({ leaky: { name: 'leaky', datasets: { risks: {} }, formats: ['csv'] } }),
          ...runContextOf({ clock: fixedClock(new Date(at)), storage, ledger, log: silentLog, planning: { credentials: { getCredentials: () => Promise.resolve(credentials) } } }),
          jobs,
          events,
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

  it('a key echoed inside a 200 answer (in `total`) reaches neither stderr nor the job status nor the failure event', async () => {
    mode = 'total-200';
    try {
      const credentials = parseCredentialsDocument(JSON.stringify(document(server.url)), 'test document');
      const client = planningClient({ credentials });
      for (const offset of [0, 1, 8, 30, 38, 39, 40, 41, 60]) {
        echo = () => `${'t'.repeat(offset)}${KEY}`;
        const error = await toArray(client.listRiskRegisters()).then(() => undefined, (e: unknown) => e as Error);
        expect(error?.message).toContain('total');
        expect({ offset, leaked: leakedPieces(`${error!.message}\n${error!.stack ?? ''}`, KEY) }).toEqual({ offset, leaked: [] });

        const io = captureIo(dir);
        const code = await runExportCommand(
          ['--report', 'report.json', '--credentials', 'credentials.json', '--out', join('out-200', String(offset)), '--quiet', '--verbose'],
          io,
        );
        const printed = io.printed();
        expect(code).toBe(1);
        expect(printed).toContain('total');
        expect({ offset, leaked: leakedPieces(printed, KEY) }).toEqual({ offset, leaked: [] });

        const ledger = new LocalLedger(join(dir, 'jobs-200-ledger'));
        const jobs = new JobStatusStore(ledger);
        const failed: unknown[] = [];
        const exportId = `job-200-${offset}`;
        const at = '2026-11-23T06:00:00.000Z';
        await jobs.put({ id: exportId, report: 'leaky', status: 'queued', createdAt: at, updatedAt: at });
        await runJob(
          { report: 'leaky', exportId, source: 'api' },
          {
            definitions: catalogOf({ leaky: { name: 'leaky', datasets: { risks: {} }, formats: ['csv'] } }),
            ...runContextOf({
              clock: fixedClock(new Date(at)),
              storage: new LocalDirectoryStorage(join(dir, 'jobs-200')),
              ledger,
              log: silentLog,
              planning: { credentials: { getCredentials: () => Promise.resolve(credentials) } },
            }),
            jobs,
            events: { publish: (type: string, detail: unknown) => Promise.resolve(void (type === 'ReportFailed' && failed.push(detail))) },
          },
        );
        const status = await jobs.get(exportId);
        expect(status?.error).toContain('total');
        const shown = `${status?.error ?? ''}\n${JSON.stringify(failed)}`;
        expect({ offset, leaked: leakedPieces(shown, KEY) }).toEqual({ offset, leaked: [] });
      }
    } finally {
      mode = 'error-400';
    }
  });

  describe('every spelling of a key with characters that encodings change', () => {
    const SPECIAL = 'Zq7v&K2<xR9"mWp4/Tn+B8c Ld3=YhF6\'gJs1QeA%é';
    const forms: [string, (key: string) => string][] = [
      ['raw', (k) => k],
      ['URL-encoded', (k) => encodeURIComponent(k)],
      ['form-encoded', (k) => encodeURIComponent(k).replace(/%20/g, '+')],
      ['JSON-escaped', (k) => JSON.stringify(k).slice(1, -1)],
      ['HTML-escaped', (k) => k.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')],
      ['HTML numeric', (k) => k.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)],
      // The attack round's escaper: `'` left alone (`Kx+/=é&quot;&lt;&amp;'y9Z-…`).
      ["HTML-escaped, ' left alone", (k) => htmlWithApostrophe(k, "'")],
      ["HTML-escaped, ' as &#x27;", (k) => htmlWithApostrophe(k, '&#x27;')],
      ["HTML-escaped, ' as &apos;", (k) => htmlWithApostrophe(k, '&apos;')],
      ['lower-cased', (k) => k.toLowerCase()],
      ['upper-cased', (k) => k.toUpperCase()],
      ["lower-cased and HTML-escaped, ' left alone", (k) => htmlWithApostrophe(k.toLowerCase(), "'")],
      ['base64 of the key alone', (k) => Buffer.from(k).toString('base64')],
      ['base64url of the key alone', (k) => Buffer.from(k).toString('base64url')],
      ['base64 inside a longer base64 (offset 1)', (k) => Buffer.from(`a${k}`).toString('base64')],
      ['base64 inside a longer base64 (offset 2)', (k) => Buffer.from(`ab${k}`).toString('base64')],
      ['Basic of email:key', (k) => `Basic ${Buffer.from(`${EMAIL}:${k}`).toString('base64')}`],
    ];

    // Before: these two reached the command line's output and its log whole.
    it.each([
      ["HTML-escaped, ' left alone", (k: string) => htmlWithApostrophe(k, "'")],
      ['lower-cased', (k: string) => k.toLowerCase()],
    ] as const)('%s: the command line prints and logs no piece of it wherever the cut falls', async (_name, encode) => {
      await writeFile(join(dir, 'special-credentials.json'), JSON.stringify({ ...document(server.url), apiKey: SPECIAL }));
      const encoded = encode(SPECIAL);
      for (const offset of cutClasses(encoded)) {
        echo = () => `${'y'.repeat(offset)}${encoded}${'z'.repeat(40)}`;
        const io = captureIo(dir);
        // --verbose logs through Powertools to the process's own streams: read them too.
        const logged: string[] = [];
        const spies = [process.stdout, process.stderr].map((stream) =>
          vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => logged.push(String(chunk)) > 0),
        );
        const code = await runExportCommand(
          ['--report', 'report.json', '--credentials', 'special-credentials.json', '--out', join('out-special', String(offset)), '--verbose'],
          io,
        ).finally(() => spies.forEach((spy) => spy.mockRestore()));
        expect(logged.join('')).toContain('"level":"');
        const printed = `${io.printed()}\n${logged.join('')}`;
        expect(code).toBe(1);
        expect(printed).toContain('answered 400');
        const leaks = [...leakedPieces(printed, encoded), ...leakedPieces(printed, SPECIAL), ...leakedPieces(printed.toLowerCase(), SPECIAL.toLowerCase())];
        expect({ offset, leaks }).toEqual({ offset, leaks: [] });
      }
    });

    it.each(forms)('%s: no 8-character piece of it, nor of the raw key, at any offset around the cut', async (_name, encode) => {
      const credentials = parseCredentialsDocument(JSON.stringify({ ...document(server.url), apiKey: SPECIAL }), 'test document');
      const client = planningClient({ credentials });
      const encoded = encode(SPECIAL);
      for (const offset of OFFSETS) {
        echo = () => `${'x'.repeat(offset)}${encoded} trailing text`;
        const error = await toArray(client.listRiskRegisters()).then(() => undefined, (e: unknown) => e as Error);
        expect(error?.message).toContain('answered 400');
        const leaks = [...leakedPieces(error!.message, encoded), ...leakedPieces(error!.message, SPECIAL)];
        expect({ offset, leaks }).toEqual({ offset, leaks: [] });
      }
    });
  });
});
