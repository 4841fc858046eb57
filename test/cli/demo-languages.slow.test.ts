// @tier slow
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { messagesFor } from '../../shared/core/i18n/messages';
import { captureIo } from '../support/cli-io';
import { readWorkbook } from '../support/read-output';
import { pdfPages, pdfInfo } from '../support/read-pdf';

/**
 * Every surface of the two-week demo in the reader's language: German and a toy language
 * added the way docs/formats.md's recipe adds one (its catalogue file alone, here every English
 * message wrapped in ‹…›, dropped into a copy of the messages folder whose index is generated). What is checked is what a reader
 * reads: the workbook's first sheets (parsed with exceljs), the PDF's text (pdftotext), the e-mail
 * (HTML, text part, subject) and the Slack and Teams messages.
 */
const { TOY } = vi.hoisted(() => ({ TOY: 'eo' }));

vi.mock('../../shared/core/i18n/catalogue-index', async () => {
  const { cpSync, mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const path = await import('node:path');
  const join = (...parts: string[]) => path.join(...parts);
  const { pathToFileURL } = await import('node:url');
  const { MESSAGES_DIR, catalogueFiles, catalogueIndexSource } = await import('../../scripts/catalogue-index');
  // A copy of the messages folder with the toy language's one file added: every English message wrapped in markers.
  const folder = mkdtempSync(join(tmpdir(), 'catalogues-'));
  cpSync(MESSAGES_DIR, folder, { recursive: true });
  const english = JSON.parse(readFileSync(join(folder, 'en.json'), 'utf8')) as Record<string, string>;
  writeFileSync(join(folder, `${TOY}.json`), JSON.stringify(Object.fromEntries(Object.entries(english).map(([id, message]) => [id, `‹${message}›`]))));
  // The index generated from that folder, as `npm run docs:glossary` writes it: no line written by hand.
  writeFileSync(join(folder, 'index.ts'), catalogueIndexSource(catalogueFiles(pathToFileURL(`${folder}/`)), './'));
  return (await import(pathToFileURL(join(folder, 'index.ts')).href)) as typeof import('../../shared/core/i18n/catalogue-index');
});

/** The report's own English words (issue 49's "How it is checked"); data (titles, names, statuses) may be English. */
const ENGLISH = [
  'Open risks', 'Needs attention', 'What changed', 'Open the workbook', 'Page 1 of', 'since', 'no owner', 'Predictability',
  'days left', 'overdue', 'OKR progress', 'Trends over', 'Changes since',
];

/** The texts of a run's surfaces a reader reads, by surface. */
async function surfaces(runFolder: string): Promise<Record<string, string>> {
  const files = await readdir(runFolder);
  const workbook = await readWorkbook(join(runFolder, files.find((f) => f.endsWith('.xlsx'))!));
  const texts: Record<string, string> = { 'sheet names': workbook.worksheets.map((s) => s.name).join('\n') };
  // The Summary, Needs attention, Trends and Changes sheets lead the workbook; the data sheets' headers follow.
  for (const sheet of workbook.worksheets.slice(0, 4)) {
    const cells: string[] = [String(sheet.headerFooter.oddFooter ?? '')];
    sheet.eachRow((row) => row.eachCell((cell) => void cells.push(cell.text)));
    texts[`sheet ${sheet.name}`] = cells.join('\n');
  }
  texts['data sheet headers'] = workbook.worksheets.slice(4).flatMap((s) => { const header: string[] = []; s.getRow(1).eachCell((cell) => void header.push(cell.text)); return header; }).join('\n');
  texts.pdf = (await pdfPages(join(runFolder, files.find((f) => f.endsWith('.pdf'))!))).join('\n');
  const mail = await simpleParser(await readFile(join(runFolder, 'email.eml')));
  texts['e-mail subject'] = mail.subject ?? '';
  texts['e-mail text'] = mail.text ?? '';
  texts['e-mail html'] = (mail.html || '').replace(/<[^>]*>/g, ' ');
  texts.slack = await readFile(join(runFolder, 'slack.json'), 'utf8');
  texts.teams = await readFile(join(runFolder, 'teams.json'), 'utf8');
  return texts;
}

/** The English words of `texts`, by surface. */
function englishIn(texts: Record<string, string>): string[] {
  return Object.entries(texts).flatMap(([surface, text]) => ENGLISH.filter((word) => text.includes(word)).map((word) => `${surface}: ${word}`));
}

/** `text` without the toy language's marked messages (a message filled into another is inside its markers). */
function unmarked(text: string): string {
  let rest = text;
  for (let before = ''; before !== rest; ) {
    before = rest;
    rest = rest.replace(/‹[^‹›]*›/g, '');
  }
  return rest;
}

describe('the demo in the reader\'s language', () => {
  let dir: string;
  let runDemoCommand: typeof import('../../cli/demo-command').runDemoCommand;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demo-languages-'));
    // The suite shares its modules between files (isolate: false): a module that read the real
    // catalogues for an earlier file would keep them. Loaded afresh, the demo reads the mocked ones.
    vi.resetModules();
    ({ runDemoCommand } = await import('../../cli/demo-command'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The demo's second week in `locale`; its run folder. */
  async function demoIn(locale: string): Promise<string> {
    const definition = JSON.parse(await readFile(new URL('../../examples/demo-report.json', import.meta.url), 'utf8'));
    const report = join(dir, `${locale}.json`);
    await writeFile(report, JSON.stringify({ ...definition, locale }));
    const out = join(dir, locale);
    const io = captureIo(dir);
    // A fixed day, as demo-command.test.ts runs it: the dates checked do not move with the wall clock.
    const code = await runDemoCommand(['--out', out, '--weeks', '2', '--report', report], io, { today: new Date(Date.UTC(2026, 10, 23, 7)) });
    expect({ code, err: io.err() }).toEqual({ code: 0, err: '' });
    const latest = JSON.parse(await readFile(join(out, 'demo-weekly', 'latest.json'), 'utf8'));
    return join(out, latest.manifest.slice(0, latest.manifest.lastIndexOf('/')));
  }

  // One shipped language, German: French's demo repeated the same proof (its catalogue's completeness
  // and translation are catalogues.test.ts's, per language; that every surface reads the catalogue is
  // the toy language's test below).
  it("writes none of the report's English words in de-DE, and declares de-DE in the PDF", async () => {
    const folder = await demoIn('de-DE');
    expect(englishIn(await surfaces(folder))).toEqual([]);
    const files = await readdir(folder);
    expect((await readFile(join(folder, files.find((f) => f.endsWith('.pdf'))!))).toString('latin1')).toContain('/Lang (de-DE)');
    await expectGermanDates(folder);
  }, 240_000);

  /**
   * Every date in the report's locale in the e-mail, the PDF and the Summary, on A4 (was a de-DE demo of its
   * own in demo-command.test.ts: the same two-week demo in German, run twice).
   */
  async function expectGermanDates(runFolder: string): Promise<void> {
    const iso = /\b\d{4}-\d{2}-\d{2}\b|\b\d{2}-\d{2}\b|\b\d{2}\/\d{2}\/\d{4}\b/;
    const html = (await readFile(join(runFolder, 'email.html'), 'utf8')).replace(/<[^>]*>/g, ' ');
    expect(html).toMatch(/IP-?\S* ?sprint from \d{2}\.\d{2}\.\d{4}|\d{2}\.\d{2}\.\d{4}/);
    expect(html.match(iso)).toBeNull();
    const pdf = execFileSync('pdftotext', ['-layout', join(runFolder, 'demo-weekly.pdf'), '-'], { encoding: 'utf8' });
    expect(pdf).toMatch(/\d{2}\.\d{2}\.\d{4}/);
    expect(pdf.match(iso)).toBeNull();
    const summary: string[] = [];
    (await readWorkbook(join(runFolder, 'demo-weekly.xlsx'))).getWorksheet(messagesFor('de-DE').t('sheet.summary'))!.eachRow((row) => row.eachCell((cell) => summary.push(cell.text)));
    expect(summary.join('\n')).toMatch(/\d{2}\.\d{2}\.\d{4}/);
    expect(summary.filter((t) => iso.test(t))).toEqual([]);
    expect(execFileSync('pdfinfo', [join(runFolder, 'demo-weekly.pdf')], { encoding: 'utf8' })).toMatch(/Page size:\s+595\.\d+ x 841\.\d+ pts \(A4\)/);
  }

  it('speaks a language added as one catalogue file on every surface, its words all from that file', async () => {
    const folder = await demoIn(TOY);
    const texts = await surfaces(folder);
    // The subject is the report's title and the run's date: data and a number, no words of the report's own.
    for (const [surface, text] of Object.entries(texts)) if (surface !== 'e-mail subject') expect(text, surface).toContain('‹');
    expect(englishIn(Object.fromEntries(Object.entries(texts).map(([surface, text]) => [surface, unmarked(text)])))).toEqual([]);
    const files = await readdir(folder);
    expect(await pdfInfo(join(folder, files.find((f) => f.endsWith('.pdf'))!))).toBeDefined();
    expect((await readFile(join(folder, files.find((f) => f.endsWith('.pdf'))!))).toString('latin1')).toContain(`/Lang (${TOY})`);
  }, 240_000);
});
