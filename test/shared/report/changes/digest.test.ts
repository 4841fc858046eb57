import { describe, expect, it } from 'vitest';
import { readerFormat } from '../../../../shared/core/format';
import { changesDigest } from '../../../../shared/report/changes/digest';
import type { ChangeReport, ChangeRow } from '../../../../shared/report/changes/model';
import { leftOutText } from '../../../../shared/email/changes-section';

const row = (what: string, from: string, to: string, typed?: ChangeRow['typed']): ChangeRow => ({
  table: 'okrs', tableLabel: 'OKRs', kind: 'changed', key: 'KR-1', link: null, sheetRow: 2, title: 'Harden logistics', what, from, to, ...(typed && { typed }),
});

const report: ChangeReport = {
  baseline: { runId: 'r0', generatedAt: new Date('2026-11-19T06:00:00Z'), manifestKey: 'm' },
  note: null,
  tables: [],
  counts: { added: 0, removed: 0, changed: 4, scope: 0 },
  rows: [
    row('Progress', '44.1 %', '50.12 %', { type: 'percent', from: 44.1, to: 50.12 }),
    row('Estimate', '1204', '2148.5', { type: 'number', from: 1204, to: 2148.5 }),
    row('Due date', '2026-11-26', '2026-12-03', { type: 'date', from: '2026-11-26', to: '2026-12-03' }),
    row('Status', 'On track', 'Off track', { type: 'text', from: 'On track', to: 'Off track' }),
  ],
  baselineFigures: null,
  sheetNames: {},
};

describe('the e-mail\'s top changes', () => {
  // In any order: the digest puts the most telling change (a status) first.
  const shown = (locale: string) => changesDigest(report, readerFormat(locale, 'Europe/Berlin')).top.map((r) => `${r.what}: ${r.from} → ${r.to}`).sort();

  it('write compared numbers and dates in the reader\'s locale, text as compared', () => {
    expect(shown('en-GB')).toEqual([
      'Due date: 26/11/2026 → 03/12/2026', 'Estimate: 1,204 → 2,148.5', 'Progress: 44.1 % → 50.1 %', 'Status: On track → Off track',
    ]);
    expect(shown('de-DE')).toEqual([
      // The fields as the German workbook heads their columns (a field the catalogue has no label for keeps its own).
      'Due date: 26.11.2026 → 03.12.2026', 'Fortschritt: 44,1 % → 50,1 %', 'Schätzung: 1.204 → 2.148,5', 'Status: On track → Off track',
    ]);
  });

  it('keep the compared text of a change that carries no typed values (a run read back from its CSV)', () => {
    const untyped = { ...report, rows: [row('Progress', '44.1 %', '50.12 %')] };
    expect(changesDigest(untyped, readerFormat('de-DE', 'UTC')).top.map((r) => [r.from, r.to])).toEqual([['44.1 %', '50.12 %']]);
  });
});

describe('what changed, ranked for a reader', () => {
  const change = (table: string, tableLabel: string, kind: ChangeRow['kind'], key: string, what: string, from: string | null = null, to: string | null = null): ChangeRow => ({
    table, tableLabel, kind, key, link: null, sheetRow: 2, title: key, what, from, to,
  });
  // As the comparison lists them: table by table, status moves of board items far ahead of the new risk.
  const statusMoves = Array.from({ length: 12 }, (_, i) => change('board-items', 'Board items', 'changed', `F-${i}`, 'Status', 'In Progress', 'Done'));
  const rows: ChangeRow[] = [
    change('risks', 'Risks', 'changed', 'R-1', 'Risk level', 'High', 'Low'),
    change('risks', 'Risks', 'changed', 'R-2', 'Status', 'Open', 'Mitigated'),
    change('risks', 'Risks', 'changed', 'R-3', 'Risk level', 'Low', 'Critical'),
    change('okrs', 'OKRs', 'changed', 'KR-1', 'Progress', '10.0 %', '20.0 %'),
    ...statusMoves,
    change('board-items', 'Board items', 'added', 'F-99', 'added'),
    change('risks', 'Risks', 'added', 'R-9', 'added'),
    change('pi-objectives', 'PI objectives', 'removed', 'O-4', 'removed'),
    { ...change('risks', 'Risks', 'note', null as unknown as string, 'note'), key: null },
  ];
  const digest = changesDigest({ ...report, rows }, readerFormat('en-GB', 'UTC'), 5);

  it('puts added and removed risks and objectives and raised risk levels before routine status moves', () => {
    expect(digest.top.map((r) => `${r.key} ${r.what}`)).toEqual(['R-9 added', 'O-4 removed', 'R-3 Risk level', 'F-99 added', 'R-2 Status']);
  });

  it('says what a cut list left out, by kind', () => {
    expect(digest.leftOut).toEqual([
      { count: 12, weight: 'status' },
      { count: 2, weight: 'other' },
    ]);
    expect(leftOutText(digest, readerFormat('en-GB', 'UTC'))).toBe("12 more status changes and 2 more field changes, in the workbook's Changes sheet");
    expect(leftOutText(changesDigest({ ...report, rows }, readerFormat('en-GB', 'UTC'), 50), readerFormat('en-GB', 'UTC'))).toBeNull();
  });
});
