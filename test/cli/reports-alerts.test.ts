import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReportsCommand } from '../../cli/reports-command';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import { stepCrossing } from '../../shared/report/alerts/crossing-state';
import { captureIo } from '../support/cli-io';
import { makeTempDir, type TempDir } from '../support/temp-dir';

/** A report's alerts in `npm run reports -- validate` and `list` (docs/reports.md, "Alerts"). */
const NOW = new Date('2026-11-27T08:00:00Z');
let dir: TempDir;

const daily = {
  definition: {
    name: 'train-a-daily',
    title: 'Train A – daily alerts',
    datasets: { risks: {}, piObjectives: {} },
    email: { to: ['rte-a@example.com'] },
    delivery: { when: 'alerts-only', channels: [{ type: 'slack', webhook: { secretId: 'planning-report-exporter/webhooks/train-a', key: 'slack' } }] },
    alerts: { rules: [{ figure: 'openHighRisks', above: 25 }, { figure: 'predictability', below: 80 }, { event: 'riskRaisedToHighest' }] },
  },
  schedule: { cron: 'cron(0 7 ? * MON-FRI *)', timeZone: 'Europe/Berlin' },
};

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(dir.root);
  const code = await runReportsCommand(args, io, { now: () => NOW });
  return { code, out: io.out(), err: io.err() };
}

beforeAll(() => {
  dir = makeTempDir('reports-alerts');
  writeFileSync(dir.path('daily.json'), JSON.stringify(daily));
  const bad = { ...daily, definition: { ...daily.definition, name: 'bad', alerts: { rules: [{ figure: 'openHighRisk', above: 25 }], to: { channels: [{ type: 'teams', webhook: { secretId: 'elsewhere', key: 'x' } }] } } } };
  writeFileSync(dir.path('bad.json'), JSON.stringify(bad));
});
afterAll(() => dir.remove());

describe('alerts in npm run reports', () => {
  it('validate names the rules and who is told, and every problem with its path', async () => {
    const good = await run(['validate', 'daily.json']);
    expect(good).toEqual({
      code: 0,
      out:
        'ok  daily.json: train-a-daily, cron(0 7 ? * MON-FRI *) Europe/Berlin\n' +
        '    alerts: openHighRisks above 25; predictability below 80 %; riskRaisedToHighest → rte-a@example.com, slack (alerts only: no report message)\n' +
        '1 of 1 file valid\n',
      err: '',
    });
    const bad = await run(['validate', 'bad.json']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^bad\.json is invalid:\n {2}- definition\.alerts\.rules\.0\.figure: "openHighRisk" is not a figure: choose one of openRisks, openHighRisks, /);
  });

  it('list shows the rules and where each stands after the last run', async () => {
    expect((await run(['push', 'daily.json', '--dir', 'defs'])).code).toBe(0);
    const ledger = new LocalLedger(dir.path('out/.ledger'));
    const at = { report: 'train-a-daily', runId: 's-20261127T060000Z', generatedAt: new Date('2026-11-27T06:00:41Z') };
    await stepCrossing(ledger, at, 'openHighRisks-above-25', [{ key: 'line', text: '30, above 25' }]);
    await stepCrossing(ledger, at, 'riskRaisedToHighest', []);
    const listed = await run(['list', '--dir', 'defs', '--out', 'out']);
    expect(listed.err).toBe('');
    expect(listed.out).toContain(
      [
        '  alerts    openHighRisks above 25; predictability below 80 %; riskRaisedToHighest → rte-a@example.com, slack (alerts only: no report message)',
        '  alerts    openHighRisks above 25: beyond its line (run s-20261127T060000Z)',
        '  alerts    predictability below 80 %: no run yet',
        '  alerts    riskRaisedToHighest: clear (run s-20261127T060000Z)',
      ].join('\n'),
    );
  });
});
