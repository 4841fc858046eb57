import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runExportCommand } from '../../cli/export-command';
import { DEFAULT_MAX_LIST_PAGES } from '../../shared/core/defaults';
import { PlanningApiError } from '../../shared/core/errors';
import { PlanningApiClient } from '../../shared/planning-api';
import { resolveClientSettings } from '../../shared/planning-api/client-settings';
import { jobExportSettings } from '../../shared/job/run-context';
import { resolveExportSettings } from '../../shared/report/definition/export-settings';
import { captureIo } from '../support/cli-io';
import { sendJson, startServer, testCredentials, type SeenRequest, type TestServer } from '../shared/planning-api/test-server';
import { planningClient, type FlatClientOptions } from '../support/planning-client';

/**
 * A server whose list never ends: every page is new (so the repeated-page check never fires), and
 * no empty page comes. Before a bound on one list, the command line without --timeout grew from
 * 713 to 1,275 MB of memory and from 48 to 394 MB of output in 75 s, without end. Now one list stops
 * after a bound of pages and bytes with an error that names the operation, the bound and what to do.
 */

type Shape = 'v1 without a total' | 'v1 with a huge total' | 'legacy board items';

/** Pages of `size` records that are new at every offset, as long as anyone asks. */
function endless(shape: Shape, request: SeenRequest, padding: string): Record<string, unknown> {
  const legacy = request.method === 'POST';
  const body = request.body as { pageStart?: number; pageSize?: number } | undefined;
  const start = legacy ? (body?.pageStart ?? 0) : Number(request.query.get('startAt') ?? 0);
  const size = legacy ? (body?.pageSize ?? 50) : Number(request.query.get('pageLimit') ?? 50);
  const records = Array.from({ length: size }, (_, i) => ({ id: `r-${start + i}`, title: `Record ${start + i}${padding}` }));
  if (shape === 'legacy board items') return { data: records };
  return { startAt: start, pageLimit: size, ...(shape === 'v1 with a huge total' && { total: 1_000_000_000 }), data: records };
}

describe('a list that never ends', () => {
  let server: TestServer;
  let shape: Shape = 'v1 without a total';
  let padding = '';
  let dir: string;

  beforeAll(async () => {
    server = await startServer((request, response) => sendJson(response, 200, endless(shape, request, padding)));
    dir = await mkdtemp(join(tmpdir(), 'endless-'));
  });
  afterEach(() => {
    server.requests.length = 0;
    padding = '';
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const client = (options: FlatClientOptions = {}) =>
    planningClient({ credentials: testCredentials(server.url), retry: { baseDelayMs: 1 }, ...options });

  async function failureOf(list: AsyncIterable<unknown>): Promise<{ error: Error; records: number }> {
    let records = 0;
    try {
      for await (const _record of list) records += 1;
    } catch (error) {
      return { error: error as Error, records };
    }
    throw new Error(`the list ended after ${records} records`);
  }

  it.each([
    ['v1 without a total', (c: PlanningApiClient) => c.listRisks('reg-1'), 'listRisks: the list of risk register "reg-1"'],
    ['v1 with a huge total', (c: PlanningApiClient) => c.listRisks('reg-1'), 'listRisks: the list of risk register "reg-1"'],
    ['legacy board items', (c: PlanningApiClient) => c.listBoardItems('b-1', { pageSize: 50 }), 'listBoardItems: the list of board "b-1"'],
  ] as const)('%s: stops past its page bound, naming the operation, the bound and what to do', async (name, list, head) => {
    shape = name;
    const { error, records } = await failureOf(list(client({ maxListPages: 30 })));
    expect(error).toBeInstanceOf(PlanningApiError);
    expect((error as PlanningApiError).retryable).toBe(false);
    expect(error.message).toMatch(new RegExp(`^${head.replace(/[()"]/g, '\\$&')} went on past 30 pages \\(API_MAX_LIST_PAGES\\)`));
    expect(error.message).toContain('Narrow the report\'s selectors');
    expect(error.message).toContain('maxListPages');
    // At most the 30 pages and the one past the bound were handed over; a read-ahead window more was asked for.
    expect(records).toBeLessThanOrEqual(30 * 50);
    expect(server.requests.length).toBeLessThanOrEqual(31 + 8);
  });

  it('stops past its byte bound when the pages are large', async () => {
    shape = 'legacy board items';
    padding = 'x'.repeat(1_000);
    const { error } = await failureOf(client({ maxListBytes: 256 * 1024 }).listBoardItems('b-1', { pageSize: 50 }));
    expect(error.message).toMatch(/^listBoardItems: the list of board "b-1" went on past 256\.0 KiB \(API_MAX_LIST_BYTES\), the bound of one list; stopped after 6 pages and 30\d\.\d KiB/);
    expect(server.requests.length).toBeLessThanOrEqual(7);
  });

  it(`is bounded by default (${DEFAULT_MAX_LIST_PAGES.toLocaleString('en-US')} pages): the settings every door resolves carry the bound the client stops at`, () => {
    // The bound itself is proven above with a small value; walking 10,001 pages to prove the default
    // took a minute on a busy machine. What a door resolves with nothing set is the default:
    expect(DEFAULT_MAX_LIST_PAGES).toBe(10_000);
    expect(jobExportSettings({}, 0, 900_000).maxListPages).toBe(DEFAULT_MAX_LIST_PAGES);
    expect(resolveExportSettings().maxListPages).toBe(DEFAULT_MAX_LIST_PAGES);
    expect(resolveClientSettings().maxListPages).toBe(DEFAULT_MAX_LIST_PAGES);
  });

  it('the command line stops at the bound it is given (API_MAX_LIST_PAGES), says why and publishes nothing', async () => {
    shape = 'v1 without a total';
    await writeFile(join(dir, 'credentials.json'), JSON.stringify(testCredentials(server.url)));
    await writeFile(join(dir, 'report.json'), JSON.stringify({ name: 'endless', datasets: { risks: {} }, formats: ['csv'] }));
    const io = captureIo(dir, { API_MAX_LIST_PAGES: '25' });
    const code = await runExportCommand(['--report', 'report.json', '--credentials', 'credentials.json', '--out', 'out', '--quiet'], io);
    expect(code).toBe(1);
    expect(io.printed()).toMatch(/export failed: the list went on past 25 pages \(API_MAX_LIST_PAGES\)/);
    expect(server.requests.length).toBeLessThanOrEqual(26);
    await expect(stat(join(dir, 'out', 'endless', 'latest.json'))).rejects.toThrow(/ENOENT/);
  });
});
