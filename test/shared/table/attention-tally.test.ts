import { describe, expect, it } from 'vitest';
import { attentionSentence, attentionTally } from '../../../shared/table/attention-tally';
import type { ReportSummary, SummaryGridRow } from '../../../shared/table/table';
import { readerFormat } from '../../../shared/core/format';

const EN = readerFormat('en-US', 'UTC');

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
    expect(attentionSentence(attentionTally(summary(rows)), EN)).toBe('16 need attention: 13 risks, 2 OKRs, 1 PI objective');
  });

  it('says one in the singular, and nothing when the list is empty', () => {
    expect(attentionSentence(attentionTally(summary([{ values: ['Risk', 'R', 'why'] }])), EN)).toBe('1 needs attention: 1 risk');
    expect(attentionSentence(attentionTally({ title: 't', sections: [] }), EN)).toBe('nothing needs attention');
  });

  it('says it in the reader\'s language, by its plural rules', () => {
    const rows: SummaryGridRow[] = [{ values: ['Risk', 'R', 'why'] }, { values: [null, null, '1 more'], more: { kind: 'Risk', count: 1 } }, { values: ['PI objective', 'P', 'why'] }];
    expect(attentionSentence(attentionTally(summary(rows)), readerFormat('de-DE', 'Europe/Berlin'))).toBe('3 mit Handlungsbedarf: 2 Risiken, 1 PI-Ziel');
    expect(attentionSentence(attentionTally(summary(rows)), readerFormat('fr-FR', 'Europe/Paris'))).toBe('3 points d’attention : 2 risques, 1 objectif de PI');
  });

  it('knows a kind by the word the reader\'s list writes for it ("Risiko", "Risque"), not only by its English name', () => {
    // As a German Summary writes its list: the What column and the "n more" row in German.
    const de: SummaryGridRow[] = [
      { values: ['Risiko', 'R', 'warum'] },
      { values: [null, null, '12 weitere'], more: { kind: 'Risiko', count: 12 } },
      { values: ['OKR', 'O', 'warum'] },
      { values: ['PI-Ziel', 'P', 'warum'] },
    ];
    expect(attentionSentence(attentionTally(summary(de)), readerFormat('de-DE', 'Europe/Berlin'))).toBe('15 mit Handlungsbedarf: 13 Risiken, 1 OKR, 1 PI-Ziel');
    const fr: SummaryGridRow[] = [{ values: ['Risque', 'R', 'pourquoi'] }, { values: ['Risque', 'R2', 'pourquoi'] }, { values: ['Objectif de PI', 'P', 'pourquoi'] }];
    expect(attentionSentence(attentionTally(summary(fr)), readerFormat('fr-FR', 'Europe/Paris'))).toBe('3 points d’attention : 2 risques, 1 objectif de PI');
  });
});
