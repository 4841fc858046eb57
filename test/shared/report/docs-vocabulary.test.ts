import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportDefinition } from '../../../shared/report/definition/definition';
import { runOf } from '../../support/run-builder';
import type { ExportResult } from '../../../shared/report/run/result';
import { tableTitle } from '../../../shared/report/names';
import { PI_OBJECTIVE_NOT_EXPORTED } from '../../../shared/report/tables/pi-objectives/pi-objectives-audit';
import { BOARD_ITEM_NOT_EXPORTED } from '../../../shared/report/tables/board-items/board-items-audit';
import { csvObjects, readCsv, readWorkbook, sheetHeader, sheetKeys, sheetRows } from '../../support/read-output';

/**
 * Records shaped as the service's public docs show them (field reference and endpoint examples):
 * tfs and jira names on PI objective items, azureId and kendisId on features, child items under
 * `children` with parentDescription, epoch-millisecond dates, teamsAndSprints as a string, a board
 * state sent as an id, group figures; and sparse records that leave every optional field out.
 */
const EPOCH = 1721943914681; // 2024-07-25T21:45:14.681Z: 25 Jul in UTC, 25 Jul in Berlin (23:45)
const BOARDS = [
  { id: 'b-ado', title: 'ADO PI#9', state: { id: 'st-1', title: 'Tracking' } },
  { id: 'b-jira', title: 'Jira PI#3', state: 'st-2' },
  { id: 'b-sparse' },
];
const GROUPS: Record<string, unknown[]> = {
  'b-ado': [{
    id: 'g-1', title: 'Team Phoenix', type: 'TeamGroup', status: { id: 's1', title: 'In Progress', category: 'InProgress' },
    completion: 55, bvPlan: 20, bvActual: 11, achievement: 55,
    objectives: [{
      id: 'OBJ-23', title: 'Ship nightly sync', type: 'Objective-Committed', completion: 50, bvPlan: 10, bvActual: 5, sequence: 1,
      status: { id: 's1', title: 'In Progress', category: 'InProgress' },
      linkedItems: [{
        id: 'li-1', tfsId: '37665', tfsURL: 'https://dev.azure.com/acme/_workitems/edit/37665', tfsItemTypeIcon: 'https://dev.azure.com/icons/feature.svg',
        title: 'Improve DWH Nightly Sync', type: 'Feature', issueType: 'Feature', storyPoints: 8, completion: 50,
        status: { id: 's2', title: 'Active', category: 'InProgress' },
        teamsAndSprints: 'Sprint 2 / Phoenix',
        subItems: [{ id: 'si-1', tfsId: '37670', tfsURL: 'https://dev.azure.com/acme/_workitems/edit/37670', title: 'Load job', type: 'UserStory', issueType: 'Story', storyPoints: 3, ownerNote: 'x' }],
      }],
    }],
  }],
  'b-jira': [{
    id: 'g-2', title: 'Team Dragon', objectives: [{
      id: 'OBJ-7', title: 'Jira objective',
      linkedItems: [{ id: 'li-2', jiraId: '10042', jiraKey: 'MPLP-281', jiraIssueTypeId: '10001', title: 'Checkout revamp', type: 'Feature' }],
    }],
  }],
  'b-sparse': [{ id: 'g-3', objectives: [{ id: 'OBJ-1', linkedItems: [{ id: 'li-3' }] }] }],
};
const ITEMS: Record<string, unknown[]> = {
  'b-ado': [{
    id: '66a2c76a09da964694561fda', azureId: '2', kendisId: '64bd1e57e87523ghjD442Fe2', iterationPath: 'ART/Sprint 2',
    estimates: 10, updatedBy: 'sample@kendis.io', createdBy: 'sample@kendis.io', createdOn: EPOCH, updatedOn: String(EPOCH),
    summary: 'Improve DWH Nightly Sync', itemType: 'Epic', cardType: 'User Story', areaPath: 'ART/Row 3', status: 'st-active',
    teamsAndSprints: '1879e6d2-43ea Phoenix', externalKey: 'MPLP-281', externalUrl: 'https://tracker.example.com/MPLP-281',
    completionByStatus: 40, completionByEstimate: 30, riskScore: 7,
    children: [
      { id: 'c-1', kendisId: '64bd1e57e87123ghjD1974f0', parentId: '66a2c76a09da964694561fda', parentDescription: 'CRM system updates v1.5', summary: 'Child story', estimates: 2, status: 'st-active' },
      { id: 'c-2' },
    ],
  }],
  'b-jira': [{ id: 'f-2', summary: 'Contract vocabulary feature', extCId: '99', createdOn: '25 Jul, 24', stories: [{ id: 's-9', summary: 'Story under stories' }] }],
  'b-sparse': [{ id: 'f-3' }],
};

function serveDocsVocabulary(): Server {
  return createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const path = url.pathname.replace(/^\/api\/acme\//, '');
      const input = body ? (JSON.parse(body) as Record<string, unknown>) : {};
      const boardId = typeof input.boardId === 'string' ? input.boardId : (url.searchParams.get('boardId') ?? '');
      const send = (data: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(data));
      };
      if (path === 'boards') return send({ data: BOARDS });
      if (path === 'objective-groups') return send({ data: GROUPS[boardId] ?? [] });
      if (path === 'items') return send({ data: Number(input.pageStart ?? 0) === 0 ? (ITEMS[boardId] ?? []) : [] });
      if (path === 'sprints' || path === 'teams') return send({ data: [] });
      if (path === 'statuses') return send({ parentStatuses: [{ id: 'st-active', title: 'Active', category: 'InProgress' }], childrenStatuses: [] });
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errorMessages: [`no route ${path}`] }));
    });
  });
}

/** Every leaf value of a record with its path (`children[].summary`), for the no-value-lost check. */
function leaves(table: string, value: unknown, path: string, out: { table: string; path: string; value: unknown }[]): void {
  if (Array.isArray(value)) {
    for (const item of value) leaves(table, item, `${path}[]`, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) leaves(table, inner, path === '' || path.endsWith('.') ? `${path}${key}` : `${path}.${key}`, out);
  } else if (value !== undefined && value !== null && value !== '') {
    out.push({ table, path: path.replace(/\[\](?=[A-Za-z])/g, '[].'), value });
  }
}

describe('an export from a server that speaks the public docs\' vocabulary', () => {
  let server: Server;
  let root: string;
  let result: ExportResult;
  let folder: string;
  const rows = async (table: string) => csvObjects(await readCsv(join(folder, `${table}.csv`)));

  beforeAll(async () => {
    server = serveDocsVocabulary();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    root = await mkdtemp(join(tmpdir(), 'docs-vocabulary-'));
    const definition = parseReportDefinition({
      name: 'docs-weekly',
      timeZone: 'Europe/Berlin',
      formats: ['xlsx', 'csv', 'parquet'],
      datasets: { piObjectives: { additionalColumns: true }, boardItems: {} },
      links: { extBBrowseUrl: 'https://tracker.example.com/browse/{key}' },
    });
    result = await runOf(definition)
      .in(root)
      .against({ email: 'a@example.com', apiKey: 'k-secret', baseUrl: base, legacyBaseUrl: base, companyPrefix: 'acme' })
      .at('2026-11-23T06:00:00Z')
      .withRunId('run-docs')
      .export();
    folder = join(root, result.runFolder);
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(root, { recursive: true, force: true });
  });

  it('reads the tfs and jira names into the tracker columns, with the icon and issue-type id', async () => {
    const items = await rows('pi-objective-items');
    const ado = items.find((r) => r.item_id === 'li-1')!;
    expect(ado).toMatchObject({
      tracker_family: 'extA', tracker_id: '37665', tracker_link: 'https://dev.azure.com/acme/_workitems/edit/37665',
      tracker_item_type_icon: 'https://dev.azure.com/icons/feature.svg', sprints: 'Sprint 2 / Phoenix', teams: '',
    });
    expect(items.find((r) => r.item_id === 'si-1')).toMatchObject({ kind: 'sub-item', tracker_id: '37670' });
    expect(items.find((r) => r.item_id === 'li-2')).toMatchObject({
      tracker_family: 'extB', tracker_id: '10042', tracker_key: 'MPLP-281', tracker_issue_type_id: '10001',
      tracker_link: 'https://tracker.example.com/browse/MPLP-281',
    });
    expect(items.find((r) => r.item_id === 'li-3')).toMatchObject({ tracker_family: '', title: '', status: '' });
  });

  it('keeps group figures and the board state, an id sent in place of the state included', async () => {
    const objectives = await rows('pi-objectives');
    expect(objectives.find((r) => r.id === 'OBJ-23')).toMatchObject({
      group_completion: '55', group_bv_plan: '20', group_bv_actual: '11', group_achievement: '55', board_state: 'Tracking',
    });
    expect(objectives.find((r) => r.id === 'OBJ-7')).toMatchObject({ board_state: 'st-2', group_completion: '' });
    expect(objectives.find((r) => r.id === 'OBJ-1')).toMatchObject({ board_id: 'b-sparse', title: '', board_state: '' });
  });

  it('writes children under `children` or `stories`, ids and epoch dates as real dates in CSV, xlsx and Parquet', async () => {
    const items = await rows('board-items');
    expect(items.map((r) => [r.kind, r.id])).toEqual([
      ['feature', '66a2c76a09da964694561fda'], ['story', 'c-1'], ['story', 'c-2'],
      ['feature', 'f-2'], ['story', 's-9'], ['feature', 'f-3'],
    ]);
    const feature = items[0]!;
    expect(feature).toMatchObject({
      tracker_id: '2', planning_id: '64bd1e57e87523ghjD442Fe2', created_on: '2024-07-25', updated_on: '2024-07-25',
      sprints: '1879e6d2-43ea Phoenix', teams: '', status: 'Active', board_state: 'Tracking',
    });
    expect(items[1]).toMatchObject({ planning_id: '64bd1e57e87123ghjD1974f0', parent_title: 'CRM system updates v1.5', summary: 'Child story' });
    expect(items[2]).toMatchObject({ parent_title: 'Improve DWH Nightly Sync', parent_id: '66a2c76a09da964694561fda' });
    expect(items[3]).toMatchObject({ tracker_id: '99', created_on: '2024-07-25' });

    const workbook = await readWorkbook(join(folder, 'docs-weekly.xlsx'));
    const sheet = workbook.getWorksheet(tableTitle('board-items'))!;
    const keys = sheetKeys('board-items', (await readCsv(join(folder, 'board-items.csv'))).header);
    expect(sheetHeader(sheet)).toContain('Tracker id');
    const created = sheetRows(sheet, keys)[0]!.cell('created_on').value;
    expect(created).toBeInstanceOf(Date);
    expect((created as Date).toISOString().slice(0, 10)).toBe('2024-07-25');

    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(':memory:');
    const connection = await db.connect();
    const parquet = result.manifest.tables!.find((t) => t.table === 'board-items')!;
    const reader = await connection.runAndReadAll(
      `SELECT CAST(created_on AS VARCHAR) AS d, tracker_id FROM read_parquet('${join(root, 'docs-weekly', parquet.path)}') WHERE kind = 'feature' ORDER BY id`,
    );
    expect(reader.getRowObjects()).toEqual([
      { d: '2024-07-25', tracker_id: '2' }, { d: '2024-07-25', tracker_id: '99' }, { d: null, tracker_id: null },
    ]);
    connection.closeSync();
  });

  it('puts every served value into a cell of its table or into the manifest list of unexported fields', async () => {
    const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')) as {
      summary: { unexportedFields: Record<string, { path: string }[]> };
    };
    const cells = async (table: string) => new Set((await readCsv(join(folder, `${table}.csv`))).rows.flat());
    const served: { table: string; path: string; value: unknown }[] = [];
    for (const records of Object.values(ITEMS)) for (const r of records) leaves('board-items', r, '', served);
    for (const groups of Object.values(GROUPS)) {
      for (const g of groups as Record<string, unknown>[]) {
        const { objectives, ...group } = g;
        leaves('pi-objectives', group, '', served);
        for (const o of (objectives ?? []) as Record<string, unknown>[]) {
          const { linkedItems, ...objective } = o;
          leaves('pi-objectives', objective, 'objectives[].', served);
          for (const item of (linkedItems ?? []) as Record<string, unknown>[]) {
            const { subItems, ...linked } = item;
            leaves('pi-objective-items', linked, '', served);
            for (const sub of (subItems ?? []) as Record<string, unknown>[]) leaves('pi-objective-items', sub, '', served);
          }
        }
      }
    }
    // Values that reach their cell changed: references shown by their title, dates as calendar dates,
    // and the objective's place in its group, which is the rows' order.
    const shownOtherwise: Record<string, (value: unknown) => string> = {
      'board-items:status': () => 'Active',
      'board-items:children[].status': () => 'Active',
      'board-items:createdOn': () => '2024-07-25',
      'board-items:updatedOn': () => '2024-07-25',
    };
    const missing: string[] = [];
    for (const { table, path, value } of served) {
      const unexported = (manifest.summary.unexportedFields[table] ?? []).some((f) => f.path === path);
      const expected = shownOtherwise[`${table}:${path}`]?.(value) ?? String(value);
      if (!unexported && !(await cells(table)).has(expected)) missing.push(`${table}: ${path} = ${JSON.stringify(value)}`);
    }
    expect(missing).toEqual([]);
  });

  it('lists every served field no column holds, per table, with the reason of those left out on purpose, and counts values of another shape', async () => {
    const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')) as { summary: Record<string, unknown> };
    expect(manifest.summary.unexportedFields).toEqual({
      // Each of the three boards serves one feature status: its id is looked up, not shown (declared, with why).
      'board-items': [
        { path: 'riskScore', records: 1 },
        { path: 'statuses.parentStatuses[].id', records: 3, reason: BOARD_ITEM_NOT_EXPORTED['statuses.parentStatuses[].id'] },
      ],
      'pi-objective-items': [{ path: 'ownerNote', records: 1 }],
      // The group's own status and the objectives' order: declared by the table, with why.
      'pi-objectives': ['objectives[].sequence', 'status.category', 'status.id', 'status.title'].map((path) => ({
        path, records: 1, reason: PI_OBJECTIVE_NOT_EXPORTED[path],
      })),
    });
    expect(manifest.summary.shapeWarnings).toEqual({
      'board-items': [
        { path: 'board.state', problem: 'an id where { id, title } was expected; shown as is in board_state', records: 1 },
        { path: 'teamsAndSprints', problem: 'text where a list of { sprint, team } was expected; shown as is in sprints', records: 1 },
      ],
      'pi-objectives': [{ path: 'board.state', problem: 'an id where { id, title } was expected; shown as is in board_state', records: 1 }],
      'pi-objective-items': [
        { path: 'teamsAndSprints', problem: 'text where a list of { team, sprint } was expected; shown as is in sprints', records: 1 },
      ],
    });
  });
});
