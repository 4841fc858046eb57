import { describe, expect, it } from 'vitest';
import { readerFormat } from '../../../../shared/core/format';
import type { ChangeRow } from '../../../../shared/report/changes/model';
import { readRules } from '../../../../shared/report/alerts/read-rules';
import type { ManifestFigures } from '../../../../shared/report/manifest/manifest-summary';

const en = readerFormat('en-GB', 'Europe/Berlin');
const de = readerFormat('de-DE', 'Europe/Berlin');
const predictability = (value: number | null, scored: boolean) => ({
  all: { label: 'All boards', committed: 4, uncommitted: 1, planned: 40, actual: 30, scored, predictability: value },
  boards: {},
});
const figures = (more: Partial<ManifestFigures> = {}): ManifestFigures => ({
  openRisks: { open: 60, highOrCritical: 30, overdue: 14, withoutOwner: 12 },
  ...more,
});
const row = (over: Partial<ChangeRow>): ChangeRow => ({
  table: 'risks', tableLabel: 'Risks', kind: 'changed', key: 'SEC-7', link: null, sheetRow: 2, title: 'Payment gateway could exceed the budget', what: 'Risk level', from: 'Low', to: 'Critical', ...over,
});

describe('readRules', () => {
  it('finds a figure beyond its line as one item naming the value and the line, and nothing on the right side', () => {
    const rules = [{ figure: 'openHighRisks', above: 29 }, { figure: 'openHighRisks', above: 30 }, { figure: 'overdueRisks', below: 20 }];
    expect(readRules(rules, { figures: figures(), changes: { rows: [] } }, en)).toEqual([
      { id: 'openHighRisks-above-29', rule: rules[0], label: 'Open high or critical risks', value: 30, items: [{ key: 'line', text: '30, above 29' }] },
      // On the line is not beyond it.
      { id: 'openHighRisks-above-30', rule: rules[1], label: 'Open high or critical risks', value: 30, items: [] },
      { id: 'overdueRisks-below-20', rule: rules[2], label: 'Overdue risks', value: 14, items: [{ key: 'line', text: '14, below 20' }] },
    ]);
  });

  it('writes percentages in the report\'s locale, and waits (no reading) while the PI is not scored or the dataset is not read', () => {
    const rule = { figure: 'predictability', below: 80 };
    const scored = readRules([rule], { figures: figures({ piPredictability: predictability(75.25, true) }), changes: { rows: [] } }, de);
    expect(scored[0]?.items).toEqual([{ key: 'line', text: '75,3 %, unter 80,0 %' }]);
    const early = readRules([rule], { figures: figures({ piPredictability: predictability(42, false) }), changes: { rows: [] } }, en);
    expect(early[0]?.items).toBeUndefined();
    const unread = readRules([{ figure: 'okrProgress', below: 50 }], { figures: figures(), changes: { rows: [] } }, en);
    expect(unread[0]).toMatchObject({ label: 'OKR progress', items: undefined });
  });

  it("names the figure and writes its line in the reader's language, the margin too", () => {
    const rules = [{ figure: 'openHighRisks', above: 29 }, { figure: 'overdueRisks', below: 13, clearAbove: 16 }];
    const read = (locale: string) => readRules(rules, { figures: figures(), changes: { rows: [] } }, readerFormat(locale, 'Europe/Berlin'));
    expect(read('de-DE').map((r) => ({ label: r.label, items: r.items, hold: r.hold }))).toEqual([
      { label: 'Offene hohe oder kritische Risiken', items: [{ key: 'line', text: '30, über 29' }], hold: undefined },
      { label: 'Überfällige Risiken', items: [], hold: [{ key: 'line', text: '14, innerhalb der Spanne von unter 13 (entwarnt über 16)' }] },
    ]);
    expect(read('fr-FR')[0]).toMatchObject({ items: [{ key: 'line', text: '30, au-dessus de 29' }] });
    // English as before.
    expect(read('en-US')[1]?.hold).toEqual([{ key: 'line', text: '14, within the margin of below 13 (clears above 16)' }]);
  });

  it('reads OKR progress as the Summary does: the average of the themes that have one', () => {
    const okr = { groups: 1, objectives: 2, keyResults: 3, averageObjectiveCompletion: 90, themeProgress: { 'ST-1': 40, 'ST-2': 50, 'ST-3': null } };
    expect(readRules([{ figure: 'okrProgress', below: 50 }], { figures: figures({ okr }), changes: { rows: [] } }, en)[0]?.items).toEqual([
      { key: 'line', text: '45.0 %, below 50.0 %' },
    ]);
  });

  it('finds risks raised to the most severe level and PI objectives removed, one item each', () => {
    const rows = [
      row({}),
      row({ key: 'SEC-8', from: 'Medium', to: 'High' }), // raised, not to the highest
      row({ key: 'SEC-9', from: 'Critical', to: 'Extreme' }), // already at the highest rank
      row({ key: 'SEC-7', what: 'Impact', from: 'Major', to: 'Severe' }),
      row({ table: 'pi-objectives', tableLabel: 'PI objectives', kind: 'removed', key: '1042', title: 'Ship the payments API', what: 'removed', from: null, to: null, context: 'Payments ART' }),
      row({ table: 'okrs', tableLabel: 'OKRs', kind: 'removed', key: 'KR-3', what: 'removed', from: null, to: null }),
    ];
    const read = readRules([{ event: 'riskRaisedToHighest' }, { event: 'objectiveDropped' }], { figures: figures(), changes: { rows } }, en);
    expect(read.map((r) => [r.label, r.items])).toEqual([
      ['Risk raised to the highest level', [{ key: 'risks:SEC-7', text: 'SEC-7 Payment gateway could exceed the budget: Low → Critical' }]],
      ['PI objective dropped', [{ key: 'pi-objectives:1042', text: '1042 Ship the payments API (Payments ART)' }]],
    ]);
  });
});
