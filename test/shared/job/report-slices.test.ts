// @tier slow
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localJobDependencies } from '../../support/local-job';
import { SesMailer } from '../../../shared/email/ses-mailer';
import { runJob, type JobContext, type SlicedJobOutcome } from '../../../shared/job/run-job';
import { manifestSchema, type Manifest } from '../../../shared/report/manifest/manifest';
import { LocalDirectoryStorage } from '../../../shared/storage/local-storage';
import { startSimulator, type RunningSimulator } from '../../../simulator/index';
import { startSesLocal, type SesLocalHandle } from '../../support/ses-local';

/**
 * A portfolio report with one delivery per release train: the data is fetched once for all three,
 * and each train's run is what a report over that train alone would be.
 */
const DATASETS = { risks: {}, okrs: {}, piObjectives: {}, boardItems: {} };
const TRAINS = [
  { name: 'payments', filter: { boards: ['1000'] }, email: { to: ['payments-rte@example.test'] } },
  { name: 'mobile', filter: { boards: ['Mobile Release Train'] }, email: { to: ['mobile-rte@example.test'] } },
  { name: 'data', filter: { boards: ['1003'], registers: ['OPS'] }, email: { to: ['data-rte@example.test'] } },
];
const PORTFOLIO = { name: 'portfolio', title: 'Portfolio', datasets: DATASETS, formats: ['xlsx', 'csv'], deliveries: TRAINS };
/** The same scope unsliced: the three trains' boards, every register. */
const WHOLE = {
  name: 'whole',
  datasets: { ...DATASETS, piObjectives: { boards: ['1000', '1001', '1003'] }, boardItems: { boards: ['1000', '1001', '1003'] } },
  formats: ['xlsx', 'csv'],
};
/** Each train as a report of its own. */
const ALONE = TRAINS.map((t) => ({
  name: `alone-${t.name}`,
  datasets: {
    ...DATASETS,
    piObjectives: { boards: t.filter.boards },
    boardItems: { boards: t.filter.boards },
    ...('registers' in t.filter && { risks: { registers: t.filter.registers } }),
  },
  formats: ['xlsx', 'csv'],
}));

let sim: RunningSimulator;
let ses: SesLocalHandle;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ tenant: 'tiny' });
  ses = await startSesLocal();
  dir = await mkdtemp(join(tmpdir(), 'slices-'));
});
afterAll(async () => {
  await Promise.all([sim.close(), ses.close()]);
  await rm(dir, { recursive: true, force: true });
});

function deps(): JobContext {
  const mailer = new SesMailer({ client: ses.client });
  return {
    ...localJobDependencies({
      dir,
      sim,
      reports: { portfolio: PORTFOLIO, whole: WHOLE, ...Object.fromEntries(ALONE.map((d) => [d.name, d])) },
      clock: () => new Date('2026-11-23T06:00:30Z'),
    }),
    mail: { send: (email) => mailer.send(email) },
    sender: 'reports@example.test',
    links: { baseUrl: 'https://api.example.test', keys: () => Promise.resolve({ current: { id: 'k1', secret: 'a'.repeat(48) } }) },
  };
}

/** Requests the simulator served during `run`. */
async function requestsOf<T>(run: () => Promise<T>): Promise<{ result: T; requests: string[] }> {
  const before = sim.requests.length;
  const result = await run();
  return { result, requests: sim.requests.slice(before).map((r) => `${r.method} ${r.path}`) };
}

async function manifestOf(key: string): Promise<Manifest> {
  const bytes = await new LocalDirectoryStorage(dir).getObject(key);
  return manifestSchema.parse(JSON.parse(Buffer.from(bytes!).toString('utf8')));
}

async function fileText(manifest: Manifest, suffix: string): Promise<string> {
  const entry = manifest.files.find((f) => f.path.endsWith(suffix))!;
  const runFolder = (await new LocalDirectoryStorage(dir).listKeys(`${manifest.report}/`)).find((k) => k.endsWith(`/${entry.path}`))!;
  return Buffer.from((await new LocalDirectoryStorage(dir).getObject(runFolder))!).toString('utf8');
}

/** The Summary's figures and sections, without "About this report" (name, title, run id). */
function figuresOf(manifest: Manifest): unknown {
  const { title: _title, ...summary } = manifest.summary;
  return { ...summary, sections: summary.sections.filter((s) => s.role !== 'about') };
}

const scheduled = (report: string) => runJob({ report, source: 'schedule', scheduledTime: '2026-11-23T06:00:00Z' }, deps());

describe('a report with one delivery per train', () => {
  it('asks the planning API no more than one unsliced run over the same trains', async () => {
    const whole = await requestsOf(() => scheduled('whole'));
    expect(whole.result.status).toBe('succeeded');
    const sliced = await requestsOf(() => scheduled('portfolio'));
    expect(sliced.result.status).toBe('succeeded');
    expect((sliced.result as SlicedJobOutcome).slices.map((s) => [s.report, s.outcome.status])).toEqual([
      ['portfolio--payments', 'succeeded'],
      ['portfolio--mobile', 'succeeded'],
      ['portfolio--data', 'succeeded'],
    ]);
    expect(sliced.requests.length).toBeLessThanOrEqual(whole.requests.length);
    expect(new Set(sliced.requests)).toEqual(new Set(whole.requests));
  });

  it('gives each train the figures and files of a report over that train alone', async () => {
    const sliced = (await scheduled('portfolio')) as SlicedJobOutcome;
    for (const [i, train] of TRAINS.entries()) {
      const slice = sliced.slices[i]!;
      expect(slice.report).toBe(`portfolio--${train.name}`);
      const alone = await scheduled(`alone-${train.name}`);
      if (slice.outcome.status !== 'succeeded' || alone.status !== 'succeeded') throw new Error('a run failed');
      const [mine, theirs] = [await manifestOf(slice.outcome.manifestKey), await manifestOf(alone.manifestKey)];
      expect(mine.summary.rows, train.name).toEqual(theirs.summary.rows);
      // Everything but the report's identity ("About this report": its name and title).
      expect(figuresOf(mine), train.name).toEqual(figuresOf(theirs));
      const tables = mine.files.filter((f) => f.format === 'csv').map((f) => f.path.slice(f.path.lastIndexOf('/') + 1));
      expect(tables.length, train.name).toBeGreaterThanOrEqual(5);
      for (const table of tables) {
        expect(await fileText(mine, table), `${train.name} ${table}`).toEqual(await fileText(theirs, table));
      }
    }
  });

  it('sends each train its own message, titled for its train, to its own recipients only', async () => {
    const mails = await ses.fetchStore();
    for (const train of TRAINS) {
      const mine = mails.filter((m) => m.destination.to.includes(train.email.to[0]!));
      expect(mine.length, train.name).toBeGreaterThanOrEqual(1);
      expect(mine.every((m) => m.subject.startsWith(`Portfolio — ${train.name}`)), train.name).toBe(true);
      expect(mine.every((m) => m.destination.to.length === 1)).toBe(true);
    }
  });

  it('runs neither a report named like a delivery of another nor that delivery: nothing is written under their shared name', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'slices-clash-'));
    try {
      const port = { name: 'port', datasets: { risks: {} }, formats: ['csv'], deliveries: [{ name: 'b', filter: { registers: ['OPS'] } }, { name: 'c' }] };
      const clash = localJobDependencies({
        dir: folder, sim, reports: { port, 'port--b': { name: 'port--b', datasets: { okrs: {} }, formats: ['csv'] } }, clock: () => new Date('2026-11-23T06:00:30Z'),
      });
      const request = (report: string) => ({ report, source: 'schedule' as const, scheduledTime: '2026-11-23T06:00:00Z' });
      const sliced = (await runJob(request('port'), clash)) as SlicedJobOutcome;
      expect(sliced.slices.map((s) => [s.report, s.outcome.status])).toEqual([['port--b', 'failed'], ['port--c', 'succeeded']]);
      const refusal = 'report "port--b" and delivery "b" of report "port" would both run as "port--b"';
      expect(sliced.slices[0]!.outcome).toMatchObject({ reason: expect.stringContaining(refusal) as unknown, retryable: false });
      const alone = await runJob(request('port--b'), clash);
      expect(alone).toMatchObject({ status: 'failed', reason: expect.stringContaining(refusal) as unknown });
      const storage = new LocalDirectoryStorage(folder);
      expect(await storage.listKeys('port--b/')).toEqual([]);
      expect((await storage.listKeys('port--c/')).some((k) => k.endsWith('manifest.json'))).toBe(true);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
