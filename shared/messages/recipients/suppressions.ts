import * as z from 'zod';
import { shellQuoted } from '../../core/text';
import { ledgerKey, type Ledger } from '../../ledger/ledger';
import { ledgerRecord, type LedgerRecord } from '../../ledger/ledger-record';

/**
 * The recipients a report no longer e-mails (`suppress/<report>` in the run ledger): an address that
 * unsubscribed through the e-mail's one-click link (RFC 8058), or whose mail bounced for good or was
 * marked as spam (SES events). One entry per report, changed by compare-and-swap, so a click and a
 * bounce at the same moment both stand. The deliver stage skips these addresses; the report's owner
 * (or the reader, from the confirmation page) lifts one again.
 */
export type SuppressionReason = 'unsubscribed' | 'bounced' | 'complained';

const suppressionSchema = z.object({
  since: z.string(),
  reason: z.enum(['unsubscribed', 'bounced', 'complained']),
});
const suppressionsSchema = z.object({ addresses: z.record(z.string(), suppressionSchema) });
export type Suppressions = Readonly<Record<string, z.infer<typeof suppressionSchema>>>;

export class SuppressionList {
  constructor(private readonly ledger: Ledger) {}

  /** The suppressed addresses of a report (lower-case), with when and why. */
  async of(report: string): Promise<Suppressions> {
    return (await this.record(report).read()).value?.addresses ?? {};
  }

  /** Suppresses `address` for `report`; false when it already was (its first reason is kept). */
  suppress(report: string, address: string, reason: SuppressionReason, now: Date): Promise<boolean> {
    const key = address.toLowerCase();
    return this.change(report, (addresses) => (key in addresses ? undefined : { ...addresses, [key]: { since: now.toISOString(), reason } }));
  }

  /** E-mails `address` again; false when it was not suppressed. */
  lift(report: string, address: string): Promise<boolean> {
    const key = address.toLowerCase();
    return this.change(report, (addresses) => {
      if (!(key in addresses)) return undefined;
      const { [key]: _lifted, ...rest } = addresses;
      return rest;
    });
  }

  /** Applies `next` by compare-and-swap; undefined from `next` means nothing to change. */
  private async change(report: string, next: (addresses: Suppressions) => Suppressions | undefined): Promise<boolean> {
    const changed = await this.record(report).change((current) => {
      const addresses = next(current?.addresses ?? {});
      return addresses && { addresses };
    });
    return changed.outcome === 'written';
  }

  private record(report: string): LedgerRecord<{ addresses: Suppressions }> {
    return ledgerRecord(this.ledger, ledgerKey('suppress', report), suppressionsSchema, { what: `the suppressed recipients of report "${report}"` });
  }
}

/** The owner's command that e-mails `address` the report again, quoted for a POSIX shell: people paste it. */
export function resubscribeCommand(report: string, address: string): string {
  return `npm run reports -- resubscribe ${shellQuoted(report)} ${shellQuoted(address)}`;
}
