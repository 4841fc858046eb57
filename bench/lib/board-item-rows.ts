import { MAX_SHEET_HYPERLINKS } from '../../shared/render/xlsx/cells';
/**
 * Realistic `board-items` rows for the render benchmarks, cheap to generate so that generation is
 * a small, separately measured share of every render time: each feature is followed by its stories
 * (two per feature, as boards usually have several), texts come from a fixed pool of varied
 * summaries (non-ASCII, `& < > " ,`, the odd newline), every row has a tracker hyperlink, and a CSV
 * line averages about 530 bytes.
 *
 * `sheetXmlChunks` renders the same rows as the worksheet XML the xlsx renderer produces (same
 * cells, styles, row attributes, hyperlink list and relationships part), so deflating it is the
 * cost of the bytes alone.
 */
import { BOARD_ITEM_COLUMNS } from '../../shared/report/tables/board-items/board-items';
import { isTextList, listText, type CellValue, type LinkValue, type TableRow } from '../../shared/table/table';
// The simulator's seeded PRNG: the same rows in every process.
import { mulberry32 } from '../../simulator/random';

export const COLUMNS = BOARD_ITEM_COLUMNS;
const STORIES_PER_FEATURE = 2;
const GROUP = 1 + STORIES_PER_FEATURE;

const WORDS = (
  'account billing checkout search catalogue payment invoice export import report dashboard login ' +
  'session token cache index queue worker retry timeout latency throughput schema migration audit ' +
  'Zürich Málaga Kraków 日本語 naïve café façade résumé über straße déjà-vu coöperate'
).split(' ');
const PEOPLE = ['j.doe', 'a.smith', 'm.müller', 'k.tanaka', 'l.garcía', 'p.okafor', 'r.novák', 's.lindqvist'];
const TEAMS = ['Phoenix', 'Dragon', 'Unicorn', 'Kraken', 'Griffin', 'Basilisk'];
const STATUSES = [
  ['To Do', 'ToDo'],
  ['In Progress', 'InProgress'],
  ['In Review', 'InProgress'],
  ['Done', 'Done'],
] as const;
// List values are shared arrays, as a dataset's would be cheap to build: generation stays a small share.
const SPRINT_LISTS = [1, 2, 3, 4, 5].map((s) => [`Sprint ${s}`, `Sprint ${s + 1}`]);
const TEAM_LISTS = TEAMS.map((t) => [t]);
const TEAM_PAIRS = TEAMS.map((t, i) => [t, TEAMS[(i + 1) % TEAMS.length]!]);
const BOARD = { id: '1003', title: 'Platform Release Train – PI 26.1' };

function sentence(next: () => number, words: number): string {
  let s = '';
  for (let i = 0; i < words; i++) s += (i ? ' ' : '') + WORDS[Math.floor(next() * WORDS.length)]!;
  return s;
}

const POOL = 4096;
const FEATURE_SUMMARIES: string[] = [];
const STORY_SUMMARIES: string[] = [];
{
  const next = mulberry32(26);
  for (let i = 0; i < POOL; i++) {
    const extra = i % 13 === 0 ? ` & <legacy> "edge", case\n${sentence(next, 4)}` : i % 5 === 0 ? ' (R&D, "phase 2")' : '';
    FEATURE_SUMMARIES.push(`As an operator I want ${sentence(next, 36)}${extra}`);
    STORY_SUMMARIES.push(`Implement ${sentence(next, 42)}${i % 11 === 0 ? ' & verify <output>, "quoted"' : ''}`);
  }
}
const DAY_MS = 86_400_000;
const ANCHOR = Date.UTC(2025, 9, 1);
const TRACKER = 'https://tracker.example.com/browse/';

/** Row `i` (0-based) of the table; `links: false` keeps the URL as plain text (no hyperlink). */
export function boardItemRow(i: number, links = true): TableRow {
  const feature = Math.floor(i / GROUP);
  const isFeature = i % GROUP === 0;
  const key = `PLT-${i + 1}`;
  const url = TRACKER + key;
  const link: LinkValue | string = links ? { text: key, url } : url;
  const status = STATUSES[(i * 7) % STATUSES.length]!;
  if (!isFeature) {
    return {
      outlineLevel: 1,
      values: [
        BOARD.id, BOARD.title, 'story', String(20_000_000 + i), String(10_000_000 + feature * GROUP), key, link,
        STORY_SUMMARIES[i % POOL]!, null, null, status[0], status[1], null, null, (i % 8) + 1,
      ],
    };
  }
  const team = TEAMS[feature % TEAMS.length]!;
  const sprint = (feature % 5) + 1;
  const created = ANCHOR + (feature % 300) * DAY_MS;
  return {
    outlineLevel: 0,
    values: [
      BOARD.id, BOARD.title, 'feature', String(10_000_000 + i), null, key, link, FEATURE_SUMMARIES[feature % POOL]!,
      feature % 5 === 0 ? 'Enabler' : 'Feature', feature % 10 === 0 ? 'Capability' : 'Feature', status[0], status[1],
      SPRINT_LISTS[sprint - 1]!, feature % 3 === 0 ? TEAM_PAIRS[feature % TEAMS.length]! : TEAM_LISTS[feature % TEAMS.length]!,
      (feature % 21) + 3, (feature * 37) % 101, ((feature * 53) % 1000) / 10,
      new Date(created), PEOPLE[feature % PEOPLE.length]!, new Date(created + (feature % 40) * DAY_MS),
      PEOPLE[(feature + 3) % PEOPLE.length]!, `${BOARD.title}\\PI 26.1\\Sprint ${sprint}`, `${BOARD.title}\\${team}`,
    ],
  };
}

// ------------------------------------------------------------------------------------------------
// The same rows as worksheet XML (the shape exceljs writes: inline `t="str"` cells, a style per kind)

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const XML_SPECIAL = /[&<>"]/g;
const escapeXml = (s: string): string => (XML_SPECIAL.test(s) ? s.replace(XML_SPECIAL, (c) => XML_ESCAPES[c]!) : s);

function letters(n: number): string {
  let s = '';
  for (let c = n; c > 0; c = Math.floor((c - 1) / 26)) s = String.fromCharCode(65 + ((c - 1) % 26)) + s;
  return s;
}
const LETTERS = COLUMNS.map((_, i) => letters(i + 1));
const EXCEL_EPOCH = Date.UTC(1899, 11, 30);

function cellXml(ref: string, value: CellValue, type: string): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return `<c r="${ref}" s="2" t="str"><v>${escapeXml(value)}</v></c>`;
  if (typeof value === 'number') {
    return type === 'percent' ? `<c r="${ref}" s="5"><v>${value / 100}</v></c>` : `<c r="${ref}" s="4"><v>${value}</v></c>`;
  }
  if (typeof value === 'boolean') return `<c r="${ref}" s="8" t="b"><v>${value ? 1 : 0}</v></c>`;
  if (value instanceof Date) return `<c r="${ref}" s="7"><v>${(value.getTime() - EXCEL_EPOCH) / DAY_MS}</v></c>`;
  if (isTextList(value)) return `<c r="${ref}" s="2" t="str"><v>${escapeXml(listText(value))}</v></c>`;
  return `<c r="${ref}" s="3" t="str"><v>${escapeXml(value.text)}</v></c>`;
}

const SHEET_HEAD =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ' +
  'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" ' +
  'mc:Ignorable="x14ac" xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac"><sheetPr><outlinePr summaryBelow="0" summaryRight="0"/></sheetPr>' +
  '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>' +
  '<sheetFormatPr defaultRowHeight="15" outlineLevelRow="1" outlineLevelCol="0" x14ac:dyDescent="55"/><cols>' +
  COLUMNS.map((c, i) => `<col min="${i + 1}" max="${i + 1}" width="${c.width ?? 12}" customWidth="1"/>`).join('') +
  '</cols><sheetData>';

/** Worksheet XML of `rows` rows in chunks of about `chunkChars`, then the relationships part. */
export function* sheetXmlChunks(rows: number, links: boolean, chunkChars = 64 * 1024): Generator<{ part: 'sheet' | 'rels'; xml: string }> {
  let xml = SHEET_HEAD;
  xml += `<row r="1" spans="1:${COLUMNS.length}" x14ac:dyDescent="0.25">`;
  COLUMNS.forEach((c, i) => {
    xml += `<c r="${LETTERS[i]!}1" s="1" t="str"><v>${c.key}</v></c>`;
  });
  xml += '</row>';
  const linkRefs: string[] = [];
  for (let i = 0; i < rows; i++) {
    const row = boardItemRow(i, links);
    const r = i + 2;
    let line = `<row r="${r}" spans="1:${row.values.length}" x14ac:dyDescent="0.25"${row.outlineLevel ? ` outlineLevel="${row.outlineLevel}"` : ''}>`;
    for (let c = 0; c < row.values.length; c++) {
      const value = row.values[c];
      const isLink = value !== null && typeof value === 'object' && !(value instanceof Date) && !isTextList(value);
      if (isLink && linkRefs.length >= MAX_SHEET_HYPERLINKS) {
        // Past the sheet's hyperlinks, a HYPERLINK formula (the renderer's linkAsFormula).
        const formula = `HYPERLINK("${value.url.replaceAll('"', '""')}","${value.text.replaceAll('"', '""')}")`;
        line += `<c r="${LETTERS[c]!}${r}" s="3" t="str"><f>${escapeXml(formula)}</f><v>${escapeXml(value.text)}</v></c>`;
        continue;
      }
      line += cellXml(`${LETTERS[c]!}${r}`, value, COLUMNS[c]!.type);
      if (isLink) linkRefs.push(`${LETTERS[c]!}${r}|${value.url}`);
    }
    xml += `${line}</row>`;
    if (xml.length >= chunkChars) {
      yield { part: 'sheet', xml };
      xml = '';
    }
  }
  xml += `</sheetData><autoFilter ref="A1:${LETTERS[COLUMNS.length - 1]!}${rows + 1}"/>`;
  if (linkRefs.length > 0) {
    xml += '<hyperlinks>';
    for (let n = 0; n < linkRefs.length; n++) {
      const ref = linkRefs[n]!;
      xml += `<hyperlink ref="${ref.slice(0, ref.indexOf('|'))}" r:id="rId${n + 1}"/>`;
      if (xml.length >= chunkChars) {
        yield { part: 'sheet', xml };
        xml = '';
      }
    }
    xml += '</hyperlinks>';
  }
  xml += '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>';
  yield { part: 'sheet', xml };
  if (linkRefs.length === 0) return;
  let rels = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">';
  for (let n = 0; n < linkRefs.length; n++) {
    const ref = linkRefs[n]!;
    rels += `<Relationship Id="rId${n + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="${escapeXml(ref.slice(ref.indexOf('|') + 1))}" TargetMode="External"/>`;
    if (rels.length >= chunkChars) {
      yield { part: 'rels', xml: rels };
      rels = '';
    }
  }
  yield { part: 'rels', xml: `${rels}</Relationships>` };
}
