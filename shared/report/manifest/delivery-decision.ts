import type { DeliveryWhen } from '../../channels/delivery-option';
import type { ReportSummary } from '../../table/table';
import type { ChangeReport } from '../changes/model';
import { attentionTally } from '../../table/attention-tally';

/** What the decision reads of a run: its "Needs attention" rows and its comparison's counts. */
export interface DeliveryInputs {
  readonly summary: ReportSummary;
  readonly changes: Pick<ChangeReport, 'baseline' | 'counts'>;
}

/**
 * Whether a run's message goes out (e-mail and chat channels), and why, in a sentence for people.
 * Decided when the run is published and kept in its manifest (`delivery`), so a run that was not
 * sent says why wherever the run is read.
 */
export interface DeliveryDecision {
  readonly send: boolean;
  readonly when: DeliveryWhen;
  readonly reason: string;
}

/** The reason of a report without e-mail recipients and chat channels. */
export const NO_READERS = 'not sent: the report has no e-mail recipients and no chat channels';

export function attentionCount(result: DeliveryInputs): number {
  return attentionTally(result.summary).total;
}

export function changeCount(result: DeliveryInputs): number {
  const c = result.changes.counts;
  return c.added + c.removed + c.changed + c.scope;
}

/**
 * `delivery.when`: "always"; "changed" sends when the comparison found changes, or when there was
 * no earlier run to compare with (the first run is news); "attention" sends when "Needs attention"
 * lists something. The export itself is kept either way.
 */
/** What the decision reads of a definition: when it delivers, whether it has deliveries, an e-mail or channels. */
export interface DeliveryDefinition {
  readonly delivery?: { readonly when?: DeliveryWhen | undefined; readonly channels: readonly unknown[] } | undefined;
  readonly deliveries?: readonly unknown[] | undefined;
  readonly email?: object | undefined;
}

export function decideDelivery(definition: DeliveryDefinition, result: DeliveryInputs): DeliveryDecision {
  const when = definition.delivery?.when ?? 'always';
  // A report with deliveries speaks through them (one run per slice); a run of the whole sends nothing.
  if ((definition.deliveries?.length ?? 0) > 0) {
    return { send: false, when, reason: 'not sent: this report sends per delivery (deliveries); this run exports it whole' };
  }
  if (when === 'alerts-only') {
    return { send: false, when, reason: 'not sent: delivery.when is "alerts-only" (alerts go out when a rule\'s line is crossed)' };
  }
  // A report nobody reads by message: say so, rather than "sent" (the run list and the manifest show it).
  if (!definition.email && (definition.delivery?.channels.length ?? 0) === 0) {
    return { send: false, when, reason: NO_READERS };
  }
  const rule = `delivery.when is "${when}"`;
  if (when === 'changed') {
    const baseline = result.changes.baseline;
    if (!baseline) return { send: true, when, reason: `sent: there is no earlier run to compare with (${rule})` };
    const changes = changeCount(result);
    return changes > 0
      ? { send: true, when, reason: `sent: ${changes} change${changes === 1 ? '' : 's'} since run ${baseline.runId} (${rule})` }
      : { send: false, when, reason: `not sent: nothing changed since run ${baseline.runId} and ${rule}` };
  }
  if (when === 'attention') {
    const items = attentionCount(result);
    return items > 0
      ? { send: true, when, reason: `sent: ${items} item${items === 1 ? ' needs' : 's need'} attention (${rule})` }
      : { send: false, when, reason: `not sent: nothing needs attention and ${rule}` };
  }
  return { send: true, when, reason: `sent: ${rule}` };
}
