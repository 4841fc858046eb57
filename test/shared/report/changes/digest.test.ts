import { describe, expect, it } from 'vitest';
import { readerFormat } from '../../../../shared/core/format';
import { changesDigest } from '../../../../shared/report/changes/digest';
import type { ChangeReport, ChangeRow } from '../../../../shared/report/changes/model';

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
      'Due date: 26/11/2026 → 03/12/2026', 'Estimate: 1,204 → 2,148.5', 'Progress: 44.1 % → 50.12 %', 'Status: On track → Off track',
    ]);
    expect(shown('de-DE')).toEqual([
      'Due date: 26.11.2026 → 03.12.2026', 'Estimate: 1.204 → 2.148,5', 'Progress: 44,1 % → 50,12 %', 'Status: On track → Off track',
    ]);
  });

  it('keep the compared text of a change that carries no typed values (a run read back from its CSV)', () => {
    const untyped = { ...report, rows: [row('Progress', '44.1 %', '50.12 %')] };
    expect(changesDigest(untyped, readerFormat('de-DE', 'UTC')).top.map((r) => [r.from, r.to])).toEqual([['44.1 %', '50.12 %']]);
  });
});
