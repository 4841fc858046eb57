import { describe, expect, it } from 'vitest';
import { attentionSentence, attentionTally } from '../../../shared/table/attention-tally';
import type { ReportSummary, SummaryGridRow } from '../../../shared/table/table';

const summary = (rows: SummaryGridRow[]): ReportSummary => ({
  title: 't',
  sections: [{ heading: 'Needs attention', role: 'attention', lines: [], grid: { columns: [], rows } }],
});

describe('attentionSentence', () => {
  it('counts an "n more" row as the n items it stands for, by kind', () => {
    const rows: SummaryGridRow[] = [
      ...Array.from({ length: 10 }, () => ({ values: ['Risk', 'R', 'why'] })),
      { values: [null, null, '3 more'], more: { kind: 'Risk', count: 3 } },
      { values: ['OKR', 'O', 'why'] },
      { values: ['OKR', 'O2', 'why'] },
      { values: ['PI objective', 'P', 'why'] },
    ];
    expect(attentionSentence(attentionTally(summary(rows)))).toBe('16 need attention: 13 risks, 2 OKRs, 1 PI objective');
  });

  it('says one in the singular, and nothing when the list is empty', () => {
    expect(attentionSentence(attentionTally(summary([{ values: ['Risk', 'R', 'why'] }])))).toBe('1 needs attention: 1 risk');
    expect(attentionSentence(attentionTally({ title: 't', sections: [] }))).toBe('nothing needs attention');
  });
});
