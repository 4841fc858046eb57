// @tier slow
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemoCommand } from '../../cli/demo-command';
import { captureIo } from '../support/cli-io';
import { csvObjects, readCsv, readWorkbook } from '../support/read-output';
import { operatorFindings, type FieldAuditFigures } from '../../shared/report/dataset/field-audit';

/**
 * Every change "What changed" shows whose row changes.csv links to the tracker is linked there: in the
 * e-mail's HTML (an anchor), its text part (the address beside it) and the PDF (a web link annotation).
 */
async function expectChangesLinked(runFolder: string, html: string, text: string, pdfText: string): Promise<void> {
  const linked = csvObjects(await readCsv(join(runFolder, 'changes.csv'))).filter((c) => c.link);
  expect(linked.length).toBeGreaterThan(0);
  const shown = linked.filter((c) => text.includes(`${c.table} ${c.key} ${c.title}`));
  expect(shown.length).toBeGreaterThan(0);
  for (const c of shown) {
    const label = `${c.table} ${c.key} ${c.title}`;
    expect(html, c.key).toContain(`<a href="${c.link}" style="color:#0b63c5;text-decoration:underline;">${label}</a>`);
    expect(text, c.key).toContain(`${label} <${c.link}>:`);
    expect(pdfText, c.key).toContain(c.key);
  }
  // The PDF's links are web links (URI actions), one per linked change it lists at least.
  const pdf = await readFile(join(runFolder, 'demo-weekly.pdf'), 'latin1');
  const uris = [...pdf.matchAll(/\/URI \(([^)]*)\)/g)].map((m) => m[1]);
  for (const c of shown) expect(uris, c.key).toContain(c.link);
}

/** The demo's two readers who are people in the planning tool (examples/demo-report.json): the run's risk owners they are. */
const DEMO_PEOPLE = [
  { address: 'priya.natarajan@example.invalid', person: 'u-1010' },
  { address: 'soren.nielsen@example.invalid', person: 'u-1005' },
] as const;

/**
 * Each person's own actions, from the mail the last week wrote and recounted from its CSVs: each of
 * the demo's two people gets an e-mail whose own block (before the report every reader reads) names
 * their open risks that put PI objectives at risk, none of the other's, with the planned BV of the
 * objectives not done those risks are linked to (risk → linked items → PI objective items with that
 * tracker key or id → objective), per risk and in all (each objective once); the first reader, who
 * owns nothing, gets no such block.
 */
async function expectOwnActions(runFolder: string): Promise<void> {
  const rows = async (name: string) => csvObjects(await readCsv(join(runFolder, `${name}.csv`)));
  const [risks, items, objectives] = [await rows('risks'), await rows('pi-objective-items'), await rows('pi-objectives')];
  const notDone = new Map(objectives.filter((o) => o.status_category !== 'Done').map((o) => [`${o.board_id} ${o.id}`, Number(o.bv_plan)]));
  const reached = (risk: Record<string, string>) => {
    const refs = new Set([...risk.linked_items!.split('; '), ...risk.linked_item_ids!.split('; ')].filter(Boolean));
    return new Set(items.filter((i) => refs.has(i.tracker_key!) || refs.has(i.tracker_id!)).map((i) => `${i.board_id} ${i.objective_id}`).filter((o) => notDone.has(o)));
  };
  const bv = (objectiveRefs: Iterable<string>) => [...objectiveRefs].reduce((sum, o) => sum + notDone.get(o)!, 0);
  const owned: { keys: string[]; own: string }[] = [];
  for (const { address, person } of DEMO_PEOPLE) {
    const text = (await simpleParser(await readFile(join(runFolder, `email-${address}.eml`)))).text!;
    const own = text.slice(0, text.indexOf('\nRisks\n'));
    const atStake = risks.filter((r) => r.responsible_id === person && r.is_open === 'true').map((r) => ({ risk: r, objectives: reached(r) })).filter((r) => r.objectives.size > 0);
    expect(atStake.length, address).toBeGreaterThan(0);
    const all = new Set(atStake.flatMap((r) => [...r.objectives]));
    expect(own, address).toContain(`Business value your risks put at risk\n  Planned BV of ${all.size} PI objective${all.size === 1 ? '' : 's'} not done: ${bv(all)}\n`);
    for (const { risk, objectives: o } of atStake) expect(own, risk.key).toContain(`  ${risk.key} ${risk.title}: Planned BV ${bv(o)}\n`);
    owned.push({ keys: atStake.map((r) => r.risk.key!), own });
  }
  // Different risks of their own: neither's block names a risk of the other's.
  const [first, second] = owned;
  for (const key of second!.keys) expect(first!.own).not.toMatch(new RegExp(`\\b${key}\\b`));
  for (const key of first!.keys) expect(second!.own).not.toMatch(new RegExp(`\\b${key}\\b`));
  expect(await readFile(join(runFolder, 'email.eml'), 'utf8')).not.toContain('Business value your risks put at risk');
}

/**
 * No page of the demo's PDF holds only a few lines (it had a page of two small tables, and one of a
 * single About line): every page, its running header and page number aside, holds more than 15
 * lines. The font notice (Li Wei's name is Han) is said in About this run, not above page 1's figures.
 */
function expectPdfPagesFilled(pdfText: string): void {
  const pages = pdfText.split('\f').filter((p) => p.trim() !== '');
  for (const [i, page] of pages.entries()) expect(page.split('\n').filter((l) => l.trim() !== '').length - 2, `PDF page ${i + 1}`).toBeGreaterThan(15);
  const notice = '"?" stands for a character this PDF\'s font cannot print';
  expect(pages[0]).not.toContain(notice);
  expect(pdfText.indexOf(notice)).toBeGreaterThan(pdfText.indexOf('About this run'));
  expect(pdfText).toContain('Li Wei (??)');
}

describe('demo command (the README\'s first command)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demo-cmd-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the demo tenant, exports it through the export command and publishes latest.json', async () => {
    const io = captureIo(dir);
    const code = await runDemoCommand(['--out', join(dir, 'out')], io);
    expect({ code, err: io.err() }).toEqual({ code: 0, err: '' });
    expect(io.out()).toMatch(/demo tenant "demo" served at http:\/\/127\.0\.0\.1:\d+/);

    const latest = JSON.parse(await readFile(join(dir, 'out', 'demo-weekly', 'latest.json'), 'utf8'));
    expect(latest).toMatchObject({ report: 'demo-weekly' });
    const manifest = JSON.parse(await readFile(join(dir, 'out', latest.manifest), 'utf8'));
    const runFolder = join(dir, 'out', latest.manifest.slice(0, latest.manifest.lastIndexOf('/')));
    const stored = await readdir(runFolder);
    for (const file of manifest.files) expect(stored).toContain(file.path);
    // The rows the manifest announces are the rows of the CSV a user opens.
    const risks = manifest.files.find((f: { path: string }) => f.path === 'risks.csv');
    const rows = parse(await readFile(join(runFolder, 'risks.csv')), { bom: true, columns: true });
    expect(rows.length).toBe(risks.rows.risks);
    expect(rows.length).toBeGreaterThan(0);

    // The messages the run would send, beside its files, their paths printed.
    for (const file of ['email.html', 'email.eml', 'slack.json', 'teams.json']) expect(io.out()).toContain(join(runFolder, file));
    const html = await readFile(join(runFolder, 'email.html'), 'utf8');
    expect(html).toContain('Needs attention');
    const mail = await simpleParser(await readFile(join(runFolder, 'email.eml')));
    // The subject a deployed stack uses: the report's title and the run's date.
    expect(mail.subject).toMatch(/^Demo company – weekly planning report – \d{2}\/\d{2}\/\d{4}$/);
    expect(mail.html).toBe(html);
    expect(mail.text).toContain('Open risks: ');
    expect(mail.text).toContain(`Risks (CSV, `);
    const slack = JSON.parse(await readFile(join(runFolder, 'slack.json'), 'utf8')) as { blocks: { type: string }[] };
    expect(slack.blocks[0]?.type).toBe('header');
    const teams = JSON.parse(await readFile(join(runFolder, 'teams.json'), 'utf8')) as { type: string; attachments: { contentType: string }[] };
    expect(teams).toMatchObject({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive' }] });

    // The demo's own note beside the messages (not in them: they are what a stack sends) says where the links open.
    const note = await readFile(join(runFolder, 'links.txt'), 'utf8');
    expect(note).toContain('npm run local');
    expect(note).toContain('npm run demo -- --local');
    expect(io.out()).toContain(join(runFolder, 'links.txt'));
  });

  it('builds four weekly runs with --weeks 4, so the last report shows a week of changes and four points of trends', async () => {
    const io = captureIo(dir);
    const out = join(dir, 'weeks');
    const today = new Date(Date.UTC(2026, 10, 23, 7));
    const code = await runDemoCommand(['--weeks', '4', '--out', out], io, { today });
    expect({ code, err: io.err() }).toEqual({ code: 0, err: '' });
    expect(io.out()).toContain('week 1 of 4, 2026-11-02: exported\nweek 2 of 4, 2026-11-09: exported\nweek 3 of 4, 2026-11-16: exported\nweek 4 of 4, 2026-11-23\n');

    const latest = JSON.parse(await readFile(join(out, 'demo-weekly', 'latest.json'), 'utf8'));
    const runFolder = join(out, latest.manifest.slice(0, latest.manifest.lastIndexOf('/')));
    const workbook = await readWorkbook(join(runFolder, 'demo-weekly.xlsx'));
    const trends = workbook.getWorksheet('Trends')!;
    const runs: { date: string; format: string; open: number }[] = [];
    trends.eachRow((row) => {
      const [run, open] = [row.getCell(1), row.getCell(2).value];
      if (run.value instanceof Date && runs.length < 4) runs.push({ date: run.value.toISOString().slice(0, 16), format: run.numFmt, open: Number(open) });
    });
    // Date cells of the wall clock in the report's zone (a 07:00 UTC run is 08:00 in Berlin, the same
    // day), shown as its locale (en-GB) writes a date.
    expect(runs.map((r) => r.date)).toEqual(['2026-11-02T08:00', '2026-11-09T08:00', '2026-11-16T08:00', '2026-11-23T08:00']);
    expect(runs.map((r) => r.format)).toEqual(Array(4).fill('dd/mm/yyyy'));
    // The last point is this run's own open risks, as its CSV lists them; a week of work closes some.
    const risks = csvObjects(await readCsv(join(runFolder, 'risks.csv')));
    expect(runs[3]!.open).toBe(risks.filter((r) => r.status === 'Open' || r.status === 'In Progress').length);
    expect(runs[3]!.open).toBeLessThan(runs[0]!.open);

    // The last week's e-mail tells what changed and shows the trends, as the deployed stack's does.
    const html = await readFile(join(runFolder, 'email.html'), 'utf8');
    expect(html).toContain('What changed');
    expect(html).toContain('Trends');
    expect(html).toMatch(/since 16\/11\/2026/);
    // "What changed" lists the risk the week added, before any status move.
    const mail = await simpleParser(await readFile(join(runFolder, 'email.eml')));
    const changed = mail.text!.slice(mail.text!.indexOf('What changed since'));
    const addedRisk = csvObjects(await readCsv(join(runFolder, 'changes.csv'))).find((c) => c.table === 'Risks' && c.kind === 'added')!;
    expect(changed).toContain(`Risks ${addedRisk.key} ${addedRisk.title}: added`);
    expect(changed.indexOf(`${addedRisk.key} `)).toBeLessThan(changed.indexOf('Status:'));
    // Every risk "Needs attention" lists names its owner, or says it has none.
    const attention = mail.text!.slice(mail.text!.indexOf('Needs attention'), mail.text!.indexOf('What changed since')).split('\n').filter((l) => /^ {2}- Risk \S/.test(l) && !/ more /.test(l));
    expect(attention.length).toBeGreaterThan(0);
    for (const line of attention) expect(line).toMatch(/ · (Owner: \S.*|no owner)$/);
    // The headline in one order on every surface: risks, risks by status (the demo keeps no ROAM field), OKR progress, PI, then attention, then what changed.
    const order = ['Open risks', 'Risks by status', 'OKR progress', 'Predictability', 'Needs attention', 'What changed since'];
    const slackText = JSON.parse(await readFile(join(runFolder, 'slack.json'), 'utf8')) as { text: string; blocks: { text?: { text: string } }[] };
    const teams = JSON.parse(await readFile(join(runFolder, 'teams.json'), 'utf8')) as { attachments: { content: { fallbackText: string; body: unknown[] } }[] };
    // The card's body as drawn (its fallback text, the headline figures, comes first and is checked below).
    const teamsText = JSON.stringify(teams.attachments[0]!.content.body).replace(/\\/g, '');
    expect(teams.attachments[0]!.content.fallbackText).toMatch(/Open risks \d+ · Open high or critical risks \d+ · OKR progress/);
    const pdfText = execFileSync('pdftotext', ['-layout', join(runFolder, 'demo-weekly.pdf'), '-'], { encoding: 'utf8' });
    const slackBlocks = slackText.blocks.map((b) => b.text?.text ?? '').join('\n');
    for (const [surface, text] of Object.entries({ email: mail.text!, slack: slackBlocks, teams: teamsText, pdf: pdfText })) {
      const at = order.map((o) => text.indexOf(o));
      expect(at.every((i) => i >= 0), surface).toBe(true);
      expect([...at].sort((a, b) => a - b), surface).toEqual(at);
    }
    // Mid-PI predictability is a running score, left out of the notification; the attention count says what it counts.
    expect(slackText.text).toMatch(/Open risks \d+ · Open high or critical risks \d+ · OKR progress [\d.]+ % · \d+ need attention: \d+ risks, \d+ OKRs$/);

    await expectChangesLinked(runFolder, html, mail.text!, pdfText);
    await expectOwnActions(runFolder);
    expectPdfPagesFilled(pdfText);

    const changes = workbook.getWorksheet('Changes')!;
    expect(changes.getCell('A1').text).toMatch(/^Changes since 16\/11\/2026/);
    expect(changes.rowCount).toBeGreaterThan(10);
    expect(risks.some((r) => r.title === 'Key architect on leave during integration sprint')).toBe(true);

    // Status categories read as words in the workbook; the CSV keeps the API's codes for programs.
    const boardSheet = workbook.getWorksheet('Board items')!;
    const categoryColumn = (boardSheet.getRow(1).values as unknown[]).indexOf('Status category');
    const shown = new Set<string>();
    boardSheet.eachRow((row, n) => n > 1 && shown.add(row.getCell(categoryColumn).text));
    expect([...shown].sort()).toEqual(['Done', 'In progress', 'To do']);
    const csvCategories = new Set(csvObjects(await readCsv(join(runFolder, 'board-items.csv'))).map((r) => r.status_category));
    expect([...csvCategories].sort()).toEqual(['Done', 'InProgress', 'ToDo']);

    // Served fields no column holds are the owners' business: in the manifest, not in what readers get.
    const manifest = JSON.parse(await readFile(join(out, latest.manifest), 'utf8')) as { summary: FieldAuditFigures };
    expect(operatorFindings(manifest.summary).length).toBeGreaterThan(0);
    const operatorNote = /no column|served field|server sent|unexpected shape|does not hold/i;
    for (const file of ['email.html', 'email.eml', 'slack.json', 'teams.json']) {
      expect(await readFile(join(runFolder, file), 'utf8'), file).not.toMatch(operatorNote);
    }
    const summaryTexts: string[] = [];
    workbook.getWorksheet('Summary')!.eachRow((row) => row.eachCell((cell) => summaryTexts.push(cell.text)));
    expect(summaryTexts.filter((t) => operatorNote.test(t))).toEqual([]);
    // The last week's set is the week before's: the command line says nothing of it (--verbose would).
    expect(io.out()).not.toMatch(operatorNote);

    // A second --weeks demo into the same folder would mix two histories: refused, with what to do.
    const again = captureIo(dir);
    expect(await runDemoCommand(['--weeks', '4', '--out', out], again, { today })).toBe(2);
    expect(again.err()).toMatch(/already holds runs; a --weeks demo builds its history from its first week\. Delete that folder or give another --out\./);
  }, 240_000); // four weekly runs with every output: about a minute alone on a loaded 2-core machine

  // Its de-DE dates (e-mail, PDF, Summary, A4) are checked on demo-languages.slow.test.ts's German demo, the same run.
  it('prints en-US on Letter', async () => {
    const definition = JSON.parse(await readFile(join(import.meta.dirname, '..', '..', 'examples', 'demo-report.json'), 'utf8')) as Record<string, unknown>;
    const today = new Date(Date.UTC(2026, 10, 23, 7));
    const american = join(dir, 'en-US.json');
    await writeFile(american, JSON.stringify({ ...definition, locale: 'en-US' }));
    const us = join(dir, 'us');
    expect(await runDemoCommand(['--out', us, '--report', american], captureIo(dir), { today })).toBe(0);
    const latest = JSON.parse(await readFile(join(us, 'demo-weekly', 'latest.json'), 'utf8'));
    const runFolder = join(us, latest.manifest.slice(0, latest.manifest.lastIndexOf('/')));
    expect(execFileSync('pdfinfo', [join(runFolder, 'demo-weekly.pdf')], { encoding: 'utf8' })).toMatch(/Page size:\s+612 x 792 pts \(letter\)/);
  }, 90_000);

  it('with --local and no local stack running, exits 1 naming npm run local before writing anything', async () => {
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as { port: number };
    await new Promise((done) => server.close(done));
    const io = captureIo(dir, { LOCAL_STACK_PORT: String(port) });
    expect(await runDemoCommand(['--local', '--out', join(dir, 'no-stack')], io)).toBe(1);
    expect(io.err()).toBe(
      `error: --local writes into the local stack, and none answers at http://127.0.0.1:${port}: start it with npm run local (in another terminal), then run npm run demo -- --local again.\n`,
    );
    await expect(readdir(join(dir, 'no-stack'))).rejects.toThrow(/ENOENT/);
  });

  it.runIf(process.platform !== 'win32')('names a --report that is a FIFO, a folder or broken JSON in one line, without a stack trace', async () => {
    const fifo = join(dir, 'report.fifo');
    execFileSync('mkfifo', [fifo]);
    await writeFile(join(dir, 'broken-report.json'), '{\n  "name": "demo-weekly",\n  "datasets": {,}\n}\n');
    for (const [report, said] of [
      [fifo, /^error: report definition ".*report\.fifo" is a named pipe \(FIFO\), not a regular file; give the path of the file itself\n$/],
      [dir, /^error: report definition ".*" is a (folder|directory)/],
      [join(dir, 'broken-report.json'), /^error: report definition ".*broken-report\.json" is not valid JSON: unexpected "," at line 3, column 16\n$/],
    ] as const) {
      const io = captureIo(dir);
      expect(await runDemoCommand(['--report', report, '--out', join(dir, 'fifo-out')], io), report).toBe(1);
      expect(io.err(), report).toMatch(said);
      expect(io.err()).not.toMatch(/\n\s+at /);
    }
  });

  it('explains its options on --help, and names an unknown option without a stack trace', async () => {
    const run = async (argv: string[]) => {
      const io = captureIo(dir);
      const code = await runDemoCommand(argv, io);
      return { code, out: io.out(), err: io.err() };
    };
    const help = await run(['--help']);
    expect(help).toMatchObject({ code: 0, err: '' });
    expect(help.out).toMatch(/^Usage: npm run demo -- \[options\]/);
    expect(help.out).toContain('--out <dir>');
    expect(help.out).toContain('--weeks <n>');
    // The help and the error give the same range.
    expect(help.out).toContain('n weekly runs (1 to 12, default 1)');
    expect((await run(['--weeks', '13'])).err).toBe('error: --weeks must be a whole number from 1 to 12\n');
    expect(help.out).toContain('--tenant <name>    demo (default), tiny or large');
    expect(await run(['--tenant', 'huge'])).toEqual({ code: 2, out: '', err: 'error: --tenant must be demo, tiny, large (not "huge")\n' });
    const wrong = await run(['--bogus']);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toBe('Unknown option \'--bogus\'\nRun "npm run demo -- --help" for the options.\n');
  });
});
