/** What `npm run discover` prints, and the starter report definition it writes. */
import { FORMATS, formatNames } from '../shared/report/manifest/formats';
import type { ReportDefinitionInput } from '../shared/report/definition/definition';
import { GROUP_TITLES } from '../shared/planning-api/api-groups';
import type { BoardTracker, Discovery } from './discover-probe';

/** Longest cell printed; longer texts are cut with an ellipsis so a table stays readable. */
const MAX_CELL = 48;

function cell(value: string | null | undefined, max: number): string {
  // Titles may hold line breaks or control characters; a table row must stay one line.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  const text = (value ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A plain-text table: a header, a rule, one line per row, columns padded to their widest cell.
 * Cells are cut at `maxCell` characters (the reasons of the API groups table are never cut).
 */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[], maxCell = MAX_CELL): string {
  const cells = [header, ...rows].map((row) => row.map((c) => cell(c, maxCell)));
  const widths = header.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]) => row.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(cells[0] ?? []), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

const TRACKER_WORDS: Record<BoardTracker, string> = {
  extA: 'first (extA / tfs, azure)',
  extB: 'second (extB / jira)',
  unknown: 'unknown',
};

function section(title: string, body: string, count: number, readable: boolean): string {
  const empty = readable ? '  (none visible to this user)' : '  (not listed: the API group refused, see above)';
  return `${title} (${count})\n${count === 0 ? empty : body}\n`;
}

/** Every table of a discovery, for the terminal. */
export function formatDiscovery(found: Discovery): string {
  const ok = (...groups: string[]) => found.groups.some((g) => groups.includes(g.group) && g.ok);
  const legacy = ok('pi-objectives', 'pi-board-items');
  const reasons = found.groups.filter((g) => g.reason !== undefined).map((g) => `  ${GROUP_TITLES[g.group]}: ${g.reason ?? ''}`);
  const parts = [
    `API groups\n${textTable(
      ['group', 'answer', 'detail'],
      found.groups.map((g) => [GROUP_TITLES[g.group], g.ok ? 'ok' : 'no', g.detail]),
    )}\n${reasons.length > 0 ? `\nWhy:\n${reasons.join('\n')}\n` : ''}`,
    section('Collections', textTable(['id', 'title'], found.collections.map((c) => [c.id, c.title ?? ''])), found.collections.length, legacy),
    section(
      'Boards',
      textTable(
        ['id', 'title', 'state', 'tracker family', 'collections'],
        found.boards.map((b) => [b.board.id, b.board.title ?? '', (typeof b.board.state === 'string' ? b.board.state : b.board.state?.title) ?? '', TRACKER_WORDS[b.tracker], b.collections.map((c) => c.title ?? c.id).join(', ')]),
      ),
      found.boards.length,
      legacy,
    ),
    section(
      'Risk registers',
      textTable(
        ['key', 'title', 'id', 'linked boards'],
        found.registers.map((r) => [r.register.key ?? '', r.register.title ?? '', r.register.id, r.boards.join(', ')]),
      ),
      found.registers.length,
      ok('risk'),
    ),
    section(
      'Portfolio themes',
      textTable(['key', 'title', 'id'], found.portfolioThemes.map((p) => [p.key ?? '', p.title ?? '', p.id])),
      found.portfolioThemes.length,
      ok('okr'),
    ),
    section(
      'Strategic themes',
      textTable(
        ['key', 'title', 'id', 'status', 'portfolio themes'],
        found.strategicThemes.map((t) => [t.theme.key ?? '', t.theme.title ?? '', t.theme.id, t.theme.status?.status ?? '', t.portfolios.map((p) => p.key ?? p.id).join(', ')]),
      ),
      found.strategicThemes.length,
      ok('okr'),
    ),
  ];
  return parts.join('\n');
}

/** A report name from the company prefix: lower-case letters, digits and hyphens. */
function reportName(companyPrefix: string): string {
  const slug = companyPrefix.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40);
  return `${slug || 'company'}-planning`;
}

/**
 * A report definition that selects everything found, by key (registers, themes) or id (boards), in
 * the groups that answered. Undefined when no group answered with anything to export.
 */
export function starterDefinition(found: Discovery, companyPrefix: string): ReportDefinitionInput | undefined {
  const ok = (group: string) => found.groups.some((g) => g.group === group && g.ok);
  const datasets: ReportDefinitionInput['datasets'] = {};
  if (ok('risk') && found.registers.length > 0) {
    datasets.risks = { registers: found.registers.map((r) => r.register.key ?? r.register.id) };
  }
  if (ok('okr') && found.strategicThemes.length > 0) {
    datasets.okrs = { strategicThemes: found.strategicThemes.map((t) => t.theme.key ?? t.theme.id) };
  }
  const boards = found.boards.map((b) => b.board.id);
  if (ok('pi-objectives') && boards.length > 0) datasets.piObjectives = { boards, additionalColumns: true };
  if (ok('pi-board-items') && boards.length > 0) datasets.boardItems = { boards };
  if (Object.keys(datasets).length === 0) return undefined;
  return {
    name: reportName(companyPrefix),
    title: `${companyPrefix} planning report`,
    timeZone: 'UTC',
    datasets,
    // Every format the stack writes, from the registry: a starter shows them all, and one is dropped by deleting it.
    formats: formatNames(FORMATS),
  };
}
