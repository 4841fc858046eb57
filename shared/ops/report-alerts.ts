import type { Ledger } from '../ledger/ledger';
import { alertTargets } from '../messages/alert-delivery';
import { describeRule } from '../report/alerts/alert-rules';
import { readCrossing } from '../report/alerts/crossing-state';
import { ruleId } from '../report/alerts/alert-rules';
import type { ReportDefinition } from '../report/definition/definition';

/**
 * A report's alerts in words, for `npm run reports -- validate` and `list` (docs/reports.md,
 * "Alerts"): its rules and who is told, and with the run ledger where each rule stands after the
 * report's last run.
 */
export function alertsLine(definition: ReportDefinition): string | undefined {
  const alerts = definition.alerts;
  if (!alerts) return undefined;
  const targets = alertTargets(definition);
  const to = [...targets.email, ...targets.channels.map((c) => c.type)];
  const only = definition.delivery?.when === 'alerts-only' ? ' (alerts only: no report message)' : '';
  return `${alerts.rules.map(describeRule).join('; ')} → ${to.length > 0 ? to.join(', ') : 'each delivery\'s recipients'}${only}`;
}

/** Each rule with where it stands: `openHighRisks above 29: beyond its line (run s-…)`, `…: clear (run …)`, `…: no run yet`. */
export async function alertStates(definition: ReportDefinition, ledger: Ledger): Promise<string[]> {
  const rules = definition.alerts?.rules ?? [];
  return Promise.all(
    rules.map(async (rule) => {
      const state = await readCrossing(ledger, definition.name, ruleId(rule));
      const where = !state ? 'no run yet' : state.beyond > 0 ? `beyond its line (run ${state.runId})` : `clear (run ${state.runId})`;
      return `${describeRule(rule)}: ${where}`;
    }),
  );
}
