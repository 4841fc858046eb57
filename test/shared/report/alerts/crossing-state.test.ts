import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';
import { crossingKey, stepCrossing, type CrossingRun } from '../../../../shared/report/alerts/crossing-state';
import { makeTempDir, type TempDir } from '../../../support/temp-dir';
import { readRules } from '../../../../shared/report/alerts/read-rules';
import { readerFormat } from '../../../../shared/core/format';

const week = (n: number): CrossingRun => ({ report: 'train-a', runId: `s-week-${n}`, generatedAt: new Date(Date.UTC(2026, 10, 2 + 7 * n, 6)) });
const beyond = [{ key: 'line', text: '30, above 29' }];

describe('stepCrossing: once per crossing', () => {
  let dir: TempDir;
  let ledger: LocalLedger;
  beforeEach(() => {
    dir = makeTempDir('crossing');
    ledger = new LocalLedger(dir.root);
  });
  afterEach(() => dir.remove());

  it('tells of a crossing once, not while the figure stays beyond its line, and again after it came back', async () => {
    const steps = [
      await stepCrossing(ledger, week(1), 'openHighRisks-above-29', []),
      await stepCrossing(ledger, week(2), 'openHighRisks-above-29', beyond),
      await stepCrossing(ledger, week(3), 'openHighRisks-above-29', [{ key: 'line', text: '31, above 29' }]),
      await stepCrossing(ledger, week(4), 'openHighRisks-above-29', []),
      await stepCrossing(ledger, week(5), 'openHighRisks-above-29', beyond),
    ];
    expect(steps.map((s) => s.news.length)).toEqual([0, 1, 0, 0, 1]);
    expect(steps[1]).toEqual({ news: beyond, step: 'new' });
    // The state is per rule: another rule of the same report has its own.
    expect((await stepCrossing(ledger, week(5), 'overdueRisks-above-10', beyond)).news).toEqual(beyond);
    expect((await ledger.get(crossingKey('train-a', 'openHighRisks-above-29')))?.value).toMatchObject({ runId: 's-week-5', before: [] });
  });

  it('gives a retry of the same run the same news, whatever it finds now, and moves nothing for an older run', async () => {
    await stepCrossing(ledger, week(1), 'r', []);
    expect(await stepCrossing(ledger, week(2), 'r', beyond)).toEqual({ news: beyond, step: 'new' });
    // A retry re-published from the manifest (no change rows) finds nothing; it still tells what the first attempt decided.
    expect(await stepCrossing(ledger, week(2), 'r', [])).toEqual({ news: beyond, step: 'again' });
    expect(await stepCrossing(ledger, week(1), 'r', beyond)).toEqual({ news: [], step: 'older' });
    expect((await stepCrossing(ledger, week(3), 'r', beyond)).news).toEqual([]);
  });

  it('tells of each new item of an event once while it keeps appearing', async () => {
    const a = { key: 'risks:SEC-7', text: 'SEC-7: Low → Critical' };
    const b = { key: 'risks:ENT-2', text: 'ENT-2: Low → Critical' };
    expect((await stepCrossing(ledger, week(1), 'riskRaisedToHighest', [a])).news).toEqual([a]);
    expect((await stepCrossing(ledger, week(2), 'riskRaisedToHighest', [a, b])).news).toEqual([b]);
    expect((await stepCrossing(ledger, week(3), 'riskRaisedToHighest', [])).news).toEqual([]);
    expect((await stepCrossing(ledger, week(4), 'riskRaisedToHighest', [a])).news).toEqual([a]);
  });

  it('decides once when two attempts of a run race: both tell the same news', async () => {
    await stepCrossing(ledger, week(1), 'r', []);
    const [first, second] = await Promise.all([stepCrossing(ledger, week(2), 'r', beyond), stepCrossing(ledger, week(2), 'r', beyond)]);
    expect([first?.step, second?.step].sort()).toEqual(['again', 'new']);
    expect(first?.news).toEqual(beyond);
    expect(second?.news).toEqual(beyond);
  });
});

describe('a rule with a clear margin', () => {
  let dir: TempDir;
  let ledger: LocalLedger;
  beforeEach(() => {
    dir = makeTempDir('crossing-margin');
    ledger = new LocalLedger(dir.root);
  });
  afterEach(() => dir.remove());

  const rule = { figure: 'openHighRisks', above: 29, clearBelow: 27 };
  /** One run: the figure read against the rule (read-rules.ts), then the crossing stepped as the alert stage does. */
  const runAt = async (n: number, value: number) => {
    const [reading] = readRules([rule], { figures: { openRisks: { open: 60, highOrCritical: value, overdue: 0, withoutOwner: 0 } }, changes: { rows: [] } }, readerFormat('en-US', 'UTC'));
    return stepCrossing(ledger, week(n), reading!.id, reading!.items ?? [], reading!.hold);
  };

  it('alerts once for a figure hovering at its line (30, 29, 30, 29 against above 29, clearBelow 27)', async () => {
    const news = [];
    for (const [n, value] of [30, 29, 30, 29].entries()) news.push((await runAt(n + 1, value)).news.length);
    expect(news).toEqual([1, 0, 0, 0]);
  });

  it('alerts again once the figure fell below the margin and crossed the line anew', async () => {
    const news = [];
    for (const [n, value] of [30, 28, 26, 30, 29].entries()) news.push((await runAt(n + 1, value)).news.length);
    expect(news).toEqual([1, 0, 0, 1, 0]);
  });

  it('does not hold a figure inside the margin that never crossed the line', async () => {
    const news = [];
    for (const [n, value] of [28, 29, 30].entries()) news.push((await runAt(n + 1, value)).news.length);
    expect(news).toEqual([0, 0, 1]);
  });
});
