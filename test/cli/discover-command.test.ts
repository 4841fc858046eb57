import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runDiscoverCommand } from '../../cli/discover-command';
import { runExportCommand } from '../../cli/export-command';
import { FORMATS } from '../../shared/report/manifest/formats';
import { startSimulator, type RunningSimulator } from '../../simulator/index';
import { captureIo } from '../support/cli-io';
import { zeroBackoffJitter } from '../support/zero-jitter';
import { csvObjects, readCsv } from '../support/read-output';

/**
 * The table row (one line) of the discover output with a cell that is `text`. Cells, not substrings:
 * a collection id such as 501 is also the tail of a port the simulator may listen on (46501), and the
 * header line names both ports.
 */
function rowOf(output: string, text: string): string {
  const cell = text.trim();
  const line = output.split('\n').find((l) => l.trim().split(/ {2,}/).includes(cell));
  if (line === undefined) throw new Error(`no row has the cell "${cell}" in:\n${output}`);
  return line;
}

/** Every CSV file below `dir`, by file name. */
async function csvFiles(dir: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.csv')) found.set(entry.name, join(entry.parentPath, entry.name));
  }
  return found;
}

async function csvRows(files: Map<string, string>, table: string): Promise<Record<string, string>[]> {
  const path = [...files.entries()].find(([n]) => n.replace(/\.csv$/, '').endsWith(table))?.[1];
  if (!path) throw new Error(`no ${table} CSV among ${[...files.keys()].join(', ')}`);
  return csvObjects(await readCsv(path));
}

/** An address where nothing listens: a port the system gave a server that has closed again. */
async function closedAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return `http://127.0.0.1:${port}`;
}

const FAMILY_WORDS = { extA: 'first (extA', extB: 'second (extB' } as const;

describe('discover command', () => {
  let sim: RunningSimulator;
  let dir: string;

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny', seed: 4 });
    dir = await mkdtemp(join(tmpdir(), 'discover-cmd-'));
    await writeFile(join(dir, 'credentials.json'), JSON.stringify(sim.credentials()));
  });
  afterAll(async () => {
    await Promise.all([sim.close(), rm(dir, { recursive: true, force: true })]);
  });
  beforeEach(() => {
    sim.clearRefusals();
  });

  it('prints its usage with --help and refuses a call without credentials', async () => {
    const help = captureIo(dir);
    expect(await runDiscoverCommand(['--help'], help)).toBe(0);
    expect(help.out()).toContain('Usage: npm run discover -- (--credentials <credentials.json> | --secret-id <id>) [--write <report.json>]');
    const bad = captureIo(dir);
    expect(await runDiscoverCommand([], bad)).toBe(2);
    expect(bad.err()).toContain('error: give exactly one of --credentials or --secret-id');
  });

  it('lists what the key may read, and writes a definition that exports as it is', async () => {
    const io = captureIo(dir);
    expect(await runDiscoverCommand(['--credentials', 'credentials.json', '--write', 'starter.json'], io)).toBe(0);
    const out = io.out();
    for (const group of ['Risk', 'Strategic Themes & OKRs', 'PI Objectives', 'PI Board Items']) {
      expect(rowOf(out, `${group}  `)).toMatch(/ ok /);
    }
    expect(out).toContain(`Boards (${sim.tenant.boards.length})`);
    for (const board of sim.tenant.boards) {
      const row = rowOf(out, board.id);
      expect(row).toContain(board.title);
      expect(row).toContain(board.state.title);
      expect(row).toContain(FAMILY_WORDS[board.trackerFamily]);
      const collection = sim.tenant.collections.find((c) => c.id === board.collectionId)!;
      expect(row).toContain(collection.title);
    }
    for (const register of sim.tenant.registers) {
      const row = rowOf(out, `${register.key} `);
      expect(row).toContain(register.title);
      for (const board of sim.tenant.boardsOfRegister(register.id)) expect(row).toContain(board.title);
    }
    for (const theme of sim.tenant.strategicThemes) expect(rowOf(out, theme.id)).toContain(theme.key);
    for (const collection of sim.tenant.collections) expect(rowOf(out, collection.id)).toContain(collection.title);
    expect(out + io.err()).not.toContain(sim.credentials().apiKey);

    const written = JSON.parse(await readFile(join(dir, 'starter.json'), 'utf8'));
    expect(written.datasets.risks.registers).toEqual(sim.tenant.registers.map((r) => r.key));
    expect(written.datasets.okrs.strategicThemes).toEqual(sim.tenant.strategicThemes.map((t) => t.key));
    expect(written.datasets.boardItems.boards).toEqual(sim.tenant.boards.map((b) => b.id));
    expect(written.datasets.piObjectives.boards).toEqual(sim.tenant.boards.map((b) => b.id));
    // Every format the stack writes, from the registry, the PDF included.
    expect(written.formats).toEqual(FORMATS.map((f) => f.name));
    expect(written.formats).toContain('pdf');

    const exported = captureIo(dir);
    const code = await runExportCommand(['--report', 'starter.json', '--credentials', 'credentials.json', '--out', 'out', '--quiet'], exported);
    expect(exported.err()).toBe('');
    expect(code).toBe(0);
    const files = await csvFiles(join(dir, 'out', written.name));
    const risks = await csvRows(files, 'risks');
    expect(new Set(risks.map((r) => r.register_key))).toEqual(new Set(sim.tenant.registers.map((r) => r.key)));
    expect(risks).toHaveLength(sim.tenant.allRisks.length);
    const items = await csvRows(files, 'board-items');
    expect(new Set(items.map((r) => r.board_id))).toEqual(new Set(sim.tenant.boards.map((b) => b.id)));
  });

  it('exports a definition that names boards, registers and themes by title', async () => {
    const [board] = sim.tenant.boards;
    const [register] = sim.tenant.registers;
    const [theme] = sim.tenant.strategicThemes;
    await writeFile(
      join(dir, 'by-title.json'),
      JSON.stringify({
        name: 'by-title',
        datasets: { risks: { registers: [register!.title] }, okrs: { strategicThemes: [theme!.title] }, boardItems: { boards: [board!.title.toUpperCase()] } },
        formats: ['csv'],
      }),
    );
    const io = captureIo(dir);
    expect(await runExportCommand(['--report', 'by-title.json', '--credentials', 'credentials.json', '--out', 'out', '--quiet'], io)).toBe(0);
    const files = await csvFiles(join(dir, 'out', 'by-title'));
    expect(new Set((await csvRows(files, 'risks')).map((r) => r.register_key))).toEqual(new Set([register!.key]));
    expect(new Set((await csvRows(files, 'board-items')).map((r) => r.board_id))).toEqual(new Set([board!.id]));
    expect(new Set((await csvRows(files, 'okrs')).map((r) => r.strategic_theme_key))).toEqual(new Set([theme!.key]));
  });

  it('does not overwrite an existing file with --write', async () => {
    await writeFile(join(dir, 'taken.json'), '{"keep":true}');
    const io = captureIo(dir);
    expect(await runDiscoverCommand(['--credentials', 'credentials.json', '--write', 'taken.json'], io)).toBe(1);
    expect(io.err()).toMatch(/could not be written to ".*taken\.json": the file exists already/);
    expect(await readFile(join(dir, 'taken.json'), 'utf8')).toBe('{"keep":true}');
  });

  it('says which group a user may not read, and leaves it out of the written definition', async () => {
    const alice = sim.users[1]!.email;
    sim.refuseGroup('okr', alice);
    await writeFile(join(dir, 'alice.json'), JSON.stringify(sim.credentials(alice)));
    const io = captureIo(dir);
    expect(await runDiscoverCommand(['--credentials', 'alice.json', '--write', 'alice-report.json'], io)).toBe(0);
    expect(rowOf(io.out(), 'Strategic Themes & OKRs  ')).toMatch(/ no +refused \(403\)$/);
    expect(io.out()).toContain('  Strategic Themes & OKRs: this user may not read this group: ');
    expect(io.out()).toContain('You do not have permission to use the Strategic Themes & OKRs API');
    expect(io.out()).toContain('Strategic themes (0)\n  (not listed: the API group refused, see above)');
    expect(rowOf(io.out(), 'Risk  ')).toMatch(/ ok /);
    const written = JSON.parse(await readFile(join(dir, 'alice-report.json'), 'utf8'));
    expect(written.datasets.okrs).toBeUndefined();
    expect(written.datasets.risks.registers).toEqual(sim.tenant.visibleTo(alice).registers.map((r) => r.key));
  });

  it('exits 1 and writes nothing when the company prefix keeps the legacy groups from answering', async () => {
    await writeFile(join(dir, 'wrong-prefix.json'), JSON.stringify({ ...sim.credentials(), companyPrefix: 'acmee' }));
    const io = captureIo(dir);
    expect(await runDiscoverCommand(['--credentials', 'wrong-prefix.json', '--write', 'prefix-report.json'], io)).toBe(1);
    for (const group of ['PI Objectives', 'PI Board Items']) expect(rowOf(io.out(), `${group}  `)).toMatch(/ no +(failed|refused) \(404\)$/);
    expect(rowOf(io.out(), 'Risk  ')).toMatch(/ ok /);
    expect(io.err()).toContain(`the legacy address ${sim.legacyBaseUrl} does not know the company prefix "acmee", so PI Objectives and PI Board Items cannot be read: set companyPrefix`);
    expect(io.err()).toContain('no report definition written');
    await expect(readFile(join(dir, 'prefix-report.json'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a baseUrl that ends in the /api/v1 the client adds itself, with the address to set', async () => {
    await writeFile(join(dir, 'api-path.json'), JSON.stringify({ ...sim.credentials(), baseUrl: `${sim.credentials().baseUrl}/api/v1` }));
    const io = captureIo(dir);
    expect(await runDiscoverCommand(['--credentials', 'api-path.json'], io)).toBe(1);
    expect(io.err()).toContain(`baseUrl ${sim.credentials().baseUrl}/api/v1 ends in /api/v1, which the client adds itself (/api/v1/…): set baseUrl to ${sim.credentials().baseUrl}`);
  });

  it('names both URLs when baseUrl and legacyBaseUrl are swapped, exits 1 and writes nothing', async () => {
    const credentials = sim.credentials();
    await writeFile(join(dir, 'swapped.json'), JSON.stringify({ ...credentials, baseUrl: credentials.legacyBaseUrl, legacyBaseUrl: credentials.baseUrl }));
    const io = captureIo(dir);
    expect(await runDiscoverCommand(['--credentials', 'swapped.json', '--write', 'swapped-report.json'], io)).toBe(1);
    for (const group of ['Risk', 'Strategic Themes & OKRs', 'PI Objectives', 'PI Board Items']) expect(rowOf(io.out(), `${group}  `)).toMatch(/ no +failed \(404\)$/);
    expect(io.err()).toContain(
      `baseUrl and legacyBaseUrl look swapped: baseUrl ${credentials.legacyBaseUrl} answers the v1 paths (/api/v1/…) with the legacy address's company-prefix error, ` +
        `and legacyBaseUrl ${credentials.baseUrl} does not know the legacy paths (/api/acme/…). Swap the two URLs in the credentials document.`,
    );
    await expect(readFile(join(dir, 'swapped-report.json'))).rejects.toThrow(/ENOENT/);
  });

  it('exits 1 and writes nothing when baseUrl answers nothing while the legacy address answers, naming the address and the groups', async () => {
    zeroBackoffJitter();
    const dead = await closedAddress();
    await writeFile(join(dir, 'dead-v1.json'), JSON.stringify({ ...sim.credentials(), baseUrl: dead }));
    const io = captureIo(dir);
    expect(await runDiscoverCommand(['--credentials', 'dead-v1.json', '--write', 'dead-v1-report.json'], io)).toBe(1);
    for (const group of ['Risk', 'Strategic Themes & OKRs']) expect(rowOf(io.out(), `${group}  `)).toMatch(/ no +no answer$/);
    for (const group of ['PI Objectives', 'PI Board Items']) expect(rowOf(io.out(), `${group}  `)).toMatch(/ ok /);
    expect(io.err()).toContain('Risk, Strategic Themes & OKRs gave no answer at all');
    expect(io.err()).toContain(`  Risk: could not reach the planning API at baseUrl ${dead} (the Risk group)`);
    expect(io.err()).toContain(`  Strategic Themes & OKRs: could not reach the planning API at baseUrl ${dead} (the Strategic Themes & OKRs group)`);
    expect(io.err()).toContain('no report definition written');
    await expect(readFile(join(dir, 'dead-v1-report.json'))).rejects.toThrow(/ENOENT/);
  });

  it('fails an export whose baseUrl answers nothing, naming the address and the group without the operation name, and publishes nothing', async () => {
    zeroBackoffJitter();
    const io = captureIo(dir);
    expect(await runDiscoverCommand(['--credentials', 'credentials.json', '--write', 'full-report.json'], io)).toBe(0);
    const dead = await closedAddress();
    await writeFile(join(dir, 'dead-export.json'), JSON.stringify({ ...sim.credentials(), baseUrl: dead }));
    const run = captureIo(dir);
    expect(await runExportCommand(['--report', 'full-report.json', '--credentials', 'dead-export.json', '--out', 'dead-out', '--quiet'], run)).toBe(1);
    expect(run.err()).toMatch(new RegExp(`export failed: could not reach the planning API at baseUrl ${dead} \\(the (Risk|Strategic Themes & OKRs) group\\)`));
    expect(run.err()).not.toMatch(/\b(list|get)[A-Z][A-Za-z]+: /);
    const written = await readdir(join(dir, 'dead-out'), { recursive: true }).catch(() => []);
    expect(written.filter((name) => /manifest\.json$|\.(csv|xlsx)$/.test(name))).toEqual([]);
  });

  it('warns when the credentials file sits in a git work tree that does not ignore it, and not once it is ignored', async () => {
    await mkdir(join(dir, 'repo'));
    execFileSync('git', ['init', '-q'], { cwd: join(dir, 'repo') });
    await writeFile(join(dir, 'repo', 'credentials.json'), JSON.stringify(sim.credentials()));
    const io = captureIo(dir);
    expect(await runDiscoverCommand(['--credentials', 'repo/credentials.json'], io)).toBe(0);
    expect(io.err()).toContain(`warning: ${join(dir, 'repo', 'credentials.json')} holds the planning API key and sits in a git work tree without being ignored`);
    await writeFile(join(dir, 'repo', '.gitignore'), 'credentials.json\n');
    const again = captureIo(dir);
    expect(await runDiscoverCommand(['--credentials', 'repo/credentials.json'], again)).toBe(0);
    expect(again.err()).toBe('');
  });

  it('reports a bad key as refused by every group, and exits 1 without writing', async () => {
    await writeFile(join(dir, 'bad-key.json'), JSON.stringify({ ...sim.credentials(), apiKey: 'sim-not-the-key-000' }));
    const io = captureIo(dir);
    expect(await runDiscoverCommand(['--credentials', 'bad-key.json', '--write', 'never.json'], io)).toBe(1);
    for (const group of ['Risk', 'Strategic Themes & OKRs', 'PI Objectives', 'PI Board Items']) {
      expect(rowOf(io.out(), `${group}  `)).toMatch(/ no +refused \(401\)$/);
      expect(io.out()).toContain(`  ${group}: the planning API rejected the credentials (401). Check the e-mail and API key`);
    }
    expect(io.err()).toContain('no report definition written');
    await expect(readFile(join(dir, 'never.json'))).rejects.toThrow(/ENOENT/);
    expect(io.out() + io.err()).not.toContain('sim-not-the-key-000');
  });
});

describe('discover command against the docs vocabulary', () => {
  let sim: RunningSimulator;
  let dir: string;

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny', seed: 4, vocabulary: 'docs' });
    dir = await mkdtemp(join(tmpdir(), 'discover-docs-'));
  });
  afterAll(async () => {
    await Promise.all([sim.close(), rm(dir, { recursive: true, force: true })]);
  });

  it('tells the tracker family from tfs/jira/azure field names', async () => {
    await writeFile(join(dir, 'credentials.json'), JSON.stringify(sim.credentials()));
    const io = captureIo(dir);
    expect(await runDiscoverCommand(['--credentials', 'credentials.json'], io)).toBe(0);
    for (const board of sim.tenant.boards) expect(rowOf(io.out(), board.id)).toContain(FAMILY_WORDS[board.trackerFamily]);
  });

  it('names the company prefix the legacy groups refuse, while the v1 groups answer, and exits 1', async () => {
    await writeFile(join(dir, 'wrong-prefix.json'), JSON.stringify({ ...sim.credentials(), companyPrefix: 'acmee' }));
    const io = captureIo(dir);
    expect(await runDiscoverCommand(['--credentials', 'wrong-prefix.json'], io)).toBe(1);
    expect(io.err()).toContain('does not know the company prefix "acmee"');
    for (const group of ['PI Objectives', 'PI Board Items']) {
      expect(rowOf(io.out(), `${group}  `)).toMatch(/ no +refused \(404\)$/);
      expect(io.out()).toContain(`  ${group}: the planning API does not accept the company prefix "acmee" of the credentials (404: Invalid company prefix in URL.)`);
    }
    expect(rowOf(io.out(), 'Risk  ')).toMatch(/ ok /);
    expect(io.out()).toContain('Boards (0)');
  });

  it('shows a long wrong company prefix in every line that names it, in the documented answers too: only the key is redacted', async () => {
    await writeFile(join(dir, 'long-prefix.json'), JSON.stringify({ ...sim.credentials(), companyPrefix: 'acme-europe-wrong' }));
    const io = captureIo(dir);
    expect(await runDiscoverCommand(['--credentials', 'long-prefix.json'], io)).toBe(1);
    const printed = io.out() + io.err();
    expect(printed).not.toContain('[REDACTED]');
    expect(io.out()).toContain('(company prefix acme-europe-wrong)');
    expect(io.err()).toContain('does not know the company prefix "acme-europe-wrong"');
    expect(printed).not.toContain(sim.credentials().apiKey);
  });

  it('names both URLs when they are swapped, in the documented answers too', async () => {
    const credentials = sim.credentials();
    await writeFile(join(dir, 'swapped.json'), JSON.stringify({ ...credentials, baseUrl: credentials.legacyBaseUrl, legacyBaseUrl: credentials.baseUrl }));
    const io = captureIo(dir);
    expect(await runDiscoverCommand(['--credentials', 'swapped.json'], io)).toBe(1);
    expect(io.err()).toContain(`baseUrl and legacyBaseUrl look swapped: baseUrl ${credentials.legacyBaseUrl} answers the v1 paths`);
  });
});
