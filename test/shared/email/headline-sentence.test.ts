import { describe, expect, it } from 'vitest';
import { headlineSentence } from '../../../shared/email/email-content';
import { readerFormat } from '../../../shared/core/format';
import type { ReportSummary, SummaryLine } from '../../../shared/table/table';

const summary = (predictability: SummaryLine): ReportSummary => ({
  title: 'Train A',
  sections: [
    { heading: 'Risks', role: 'headline', lines: [{ label: 'Open risks', value: 58, type: 'integer' }] },
    { heading: 'PI objectives', role: 'headline', lines: [predictability] },
  ],
});

describe('headlineSentence', () => {
  it('names predictability once its PI is scored, and leaves a running score out while the PI is in progress', () => {
    const format = readerFormat('en-US', 'UTC');
    expect(headlineSentence(summary({ label: 'Predictability', value: 63.8, type: 'percent' }), format)).toBe(
      'Open risks 58 · Predictability 63.8 % · nothing needs attention',
    );
    expect(headlineSentence(summary({ label: 'Predictability', value: 63.8, type: 'percent', provisional: true }), format)).toBe(
      'Open risks 58 · nothing needs attention',
    );
  });
});
