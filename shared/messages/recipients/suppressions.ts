import * as z from 'zod';
import { StorageError } from '../../core/errors';
import { ledgerKey, type Ledger } from '../../ledger/ledger';

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

const MAX_ROUNDS = 10;

export class SuppressionList {
  constructor(private readonly ledger: Ledger) {}

  /** The suppressed addresses of a report (lower-case), with when and why. */
  async of(report: string): Promise<Suppressions> {
    return (await this.read(report)).addresses;
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
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const current = await this.read(report);
      const addresses = next(current.addresses);
      if (addresses === undefined) return false;
      if (await this.ledger.put(ledgerKey('suppress', report), { addresses }, current.version)) return true;
    }
    throw new StorageError(`the suppressed recipients of report "${report}" kept changing; try again`, { retryable: true });
  }

  private async read(report: string): Promise<{ addresses: Suppressions; version: number }> {
    const entry = await this.ledger.get(ledgerKey('suppress', report));
    if (!entry) return { addresses: {}, version: 0 };
    const parsed = suppressionsSchema.safeParse(entry.value);
    if (!parsed.success) throw new StorageError(`the suppressed recipients of report "${report}" in ${this.ledger.describe()} are not valid`);
    return { addresses: parsed.data.addresses, version: entry.version };
  }
}
