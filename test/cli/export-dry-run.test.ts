import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runExportCommand } from '../../cli/export-command';
import { startSimulator, type RunningSimulator } from '../../simulator/index';
import { captureIo } from '../support/cli-io';
import { dataRequests } from '../support/list-calls';

/**
 * `npm run export -- --dry-run`: the plan alone. It reads the planning API's lists and nothing else,
 * writes nothing (no folder, no ledger), prints what a run would fetch and write, and lists every
 * problem at once when the plan fails.
 */
describe('export --dry-run', () => {
  let sim: RunningSimulator;
  let dir: string;
  const absent = (path: string) => expect(access(join(dir, path))).rejects.toThrow(/ENOENT/);
  const dryRun = (report: string, credentials = 'credentials.json', extra: string[] = []) => {
    const io = captureIo(dir);
    return runExportCommand(['--report', report, '--credentials', credentials, '--out', 'out', '--dry-run', ...extra], io).then((code) => ({ code, io }));
  };

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    dir = await mkdtemp(join(tmpdir(), 'export-dry-run-'));
    await writeFile(join(dir, 'credentials.json'), JSON.stringify(sim.credentials()));
    await writeFile(join(dir, 'wrong-prefix.json'), JSON.stringify({ ...sim.credentials(), companyPrefix: 'acmee' }));
    const good = {
      name: 'planned',
      datasets: { risks: { registers: ['OPS', 'Enterprise risks'] }, okrs: {}, piObjectives: {}, boardItems: { boards: ['Payments ART', '1002'] } },
      formats: ['xlsx', 'csv', 'parquet'],
    };
    await writeFile(join(dir, 'good.json'), JSON.stringify(good));
    const bad = { name: 'misnamed', datasets: { risks: { registers: ['ENT', 'No such register'] }, boardItems: { boards: ['1000', 'Payments ARTT'] } } };
    await writeFile(join(dir, 'bad.json'), JSON.stringify(bad));
    await writeFile(join(dir, 'boards.json'), JSON.stringify({ name: 'boards', datasets: { boardItems: {} } }));
  });
  beforeEach(() => {
    sim.clearRequests();
  });
  afterAll(async () => {
    await Promise.all([sim.close(), rm(dir, { recursive: true, force: true })]);
  });

  it('prints what a good definition would fetch and write, asks the lists alone and writes nothing', async () => {
    const { code, io } = await dryRun('good.json', 'credentials.json', ['--run-id', 'weekly-1']);
    expect({ code, err: io.err() }).toEqual({ code: 0, err: '' });
    const out = io.out();
    expect(out).toContain('dry run of "planned": the plan holds; nothing was fetched but the lists, nothing written');
    // Registers in the order named, boards in the API's order: as the run will export them.
    expect(out).toMatch(/ {2}risks {9}2 risk registers\n {18}OPS "Operations & delivery risks"\n {18}ENT "Enterprise risks"\n {16}at least 2 requests: /);
    expect(out).toMatch(/ {2}boardItems {4}2 boards\n {18}1000 "Payments ART"\n {18}1002 "Platform Solution Train"\n {16}at least 8 requests: /);
    expect(out).toMatch(/ {2}piObjectives {2}4 boards\n(?: {18}.+\n){4} {16}12 requests: the objective groups, the sprints and the teams of each board\n/);
    expect(out).toMatch(/ {2}okrs {10}2 strategic themes\n/);
    const lists = sim.requests.length;
    expect(out).toContain(`  lists         ${lists} requests: the lists the plan read just now`);
    expect(out).toContain(`  in all        at least ${lists + 2 + 4 + 12 + 8} requests\n`);
    expect(out).toContain(`would write to ${join(dir, 'out')}\n`);
    expect(out).toMatch(/ {2}run folder {2}planned\/dt=\d{4}-\d{2}-\d{2}\/run=weekly-1\/\n/);
    expect(out).toContain('  xlsx        planned.xlsx\n');
    expect(out).toContain('              changes.csv\n');
    expect(out).toMatch(/ {2}parquet {5}planned\/tables\/risks\/dt=\d{4}-\d{2}-\d{2}\/run=weekly-1\/part-00000\.parquet\n/);
    expect(out).toContain('              planned/latest.json\n');
    expect(dataRequests(sim.requests)).toEqual([]);
    await absent('out');
  });

  it('says where the run id goes when the run will choose it', async () => {
    const { code, io } = await dryRun('boards.json');
    expect(code).toBe(0);
    expect(io.out()).toMatch(/run folder {2}boards\/dt=\d{4}-\d{2}-\d{2}\/run=<run id>\/ \(the run chooses its id when it starts; --run-id fixes it\)/);
  });

  it('lists every bad selector of every dataset with its path, exits 1, and asks no data', async () => {
    const { code, io } = await dryRun('bad.json');
    expect(code).toBe(1);
    expect(io.out()).toBe('');
    expect(io.err()).toContain('dry run failed: report "misnamed" cannot run as defined (2 problems); nothing was fetched or written:\n');
    expect(io.err()).toMatch(/\n {2}- datasets\.risks\.registers\[1\]: "No such register" is not a risk register this key can see \(by id, key or title\); visible: ENT "Enterprise risks", OPS "Operations & delivery risks"\.\n/);
    expect(io.err()).toMatch(/\n {2}- datasets\.boardItems\.boards\[1\]: "Payments ARTT" is not a board this key can see \(by id or title\); visible: 1000 "Payments ART", /);
    expect(io.err()).toContain('nothing was written.\n');
    expect(sim.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET /api/acme/boards', 'GET /api/v1/riskregister']);
    await absent('out');
  });

  it('names a company prefix the API refuses, once, though two datasets read the boards', async () => {
    await writeFile(join(dir, 'legacy.json'), JSON.stringify({ name: 'legacy', datasets: { piObjectives: {}, boardItems: { boards: ['1000'] } } }));
    const { code, io } = await dryRun('legacy.json', 'wrong-prefix.json');
    expect(code).toBe(1);
    expect(io.err()).toContain(
      'report "legacy" cannot run as defined (one problem); nothing was fetched or written:\n' +
        '  - credentials.companyPrefix: the planning API does not accept the company prefix "acmee" of the credentials: the list of boards answered 404.',
    );
    expect(sim.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /api/acmee/boards 404']);
    await absent('out');
  });
});
