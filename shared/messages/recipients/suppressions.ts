import * as z from 'zod';
import { shellQuoted } from '../../core/text';
import { ledgerKey, type Ledger } from '../../ledger/ledger';
import { ledgerRecord, type LedgerRecord } from '../../ledger/ledger-record';

/**
 * The recipients a report no longer e-mails: an address that unsubscribed through the e-mail's
 * one-click link (RFC 8058), or whose mail bounced for good or was marked as spam (SES events).
 *
 * One ledger entry per report and address (`suppress/<report>/<address>`), written by
 * compare-and-swap on that entry alone: a burst of a hundred one-click POSTs or bounces for a
 * hundred addresses writes a hundred entries that never race each other (one entry per report made
 * every writer of the burst race on it, and most lost). Who is suppressed is read per address: the
 * callers always know which addresses they ask about (the definition's recipients, the token's
 * address), so no listing of the table is needed. The entry of a report written by earlier
 * releases (`suppress/<report>`, every address in one value) is still read, and lifted from.
 *
 * The deliver stage skips these addresses. The reader lifts only their own unsubscribe (the
 * confirmation page); a bounce or a complaint only the report's owner lifts (`reports resubscribe`).
 */
export type SuppressionReason = 'unsubscribed' | 'bounced' | 'complained';
const reasonSchema = z.enum(['unsubscribed', 'bounced', 'complained']);

const suppressionSchema = z.object({
  since: z.string(),
  reason: reasonSchema,
  /** When the owners were told of it (bounces and complaints; see mail-events.ts). */
  toldAt: z.string().optional(),
});
export type Suppression = z.infer<typeof suppressionSchema>;
/** An address e-mailed again: the entry stays (the ledger removes nothing), saying so. */
const liftedSchema = z.object({ liftedAt: z.string() });
const entrySchema = z.union([suppressionSchema, liftedSchema]);
type Entry = z.infer<typeof entrySchema>;
const legacySchema = z.object({ addresses: z.record(z.string(), suppressionSchema) });

/** Suppressed addresses (lower-case) with when and why. */
export type Suppressions = Readonly<Record<string, Suppression>>;

/** How many addresses are read at once: the recipients of a report (at most 100) in a few rounds. */
const READ_CONCURRENCY = 16;

export type LiftOutcome = 'lifted' | 'not-suppressed' | 'kept';

export class SuppressionList {
  constructor(private readonly ledger: Ledger) {}

  /** Which of `addresses` the report does not e-mail (keys lower-case), with when and why. */
  async of(report: string, addresses: readonly string[]): Promise<Suppressions> {
    const legacy = (await this.legacy(report).read()).value?.addresses ?? {};
    const found: Record<string, Suppression> = {};
    for (const [key, entry] of await this.entries(report, addresses)) {
      const suppression = entry === undefined ? legacy[key] : suppressionOf(entry);
      if (suppression) found[key] = suppression;
    }
    return found;
  }

  /** Of `addresses`, those suppressed for a bounce or a complaint that the owners were not told of yet. */
  async untold(report: string, addresses: readonly string[]): Promise<Suppressions> {
    const found: Record<string, Suppression> = {};
    for (const [key, entry] of await this.entries(report, addresses)) {
      const suppression = entry && suppressionOf(entry);
      if (suppression && suppression.reason !== 'unsubscribed' && suppression.toldAt === undefined) found[key] = suppression;
    }
    return found;
  }

  /** Suppresses `address` for `report`; false when it already was (its first reason is kept). */
  async suppress(report: string, address: string, reason: SuppressionReason, now: Date): Promise<boolean> {
    const key = address.toLowerCase();
    // Lifting removes an address from the earlier releases' entry, so one still there is suppressed.
    if (Object.hasOwn((await this.legacy(report).read()).value?.addresses ?? {}, key)) return false;
    const changed = await this.entry(report, key).change((current) => (current !== undefined && suppressionOf(current) ? undefined : { since: now.toISOString(), reason }));
    return changed.outcome === 'written';
  }

  /**
   * E-mails `address` again. `onlyIf`: lift it only when suppressed for that reason (the reader's
   * token lifts an unsubscribe, never a bounce or a complaint): `kept` when it is suppressed for another.
   */
  async lift(report: string, address: string, now: Date, onlyIf?: SuppressionReason): Promise<LiftOutcome> {
    const key = address.toLowerCase();
    const current = (await this.of(report, [key]))[key];
    if (current === undefined) return 'not-suppressed';
    if (onlyIf !== undefined && current.reason !== onlyIf) return 'kept';
    await this.legacy(report).change((value) => {
      if (!value || !Object.hasOwn(value.addresses, key)) return undefined;
      const { [key]: _lifted, ...rest } = value.addresses;
      return { addresses: rest };
    });
    const changed = await this.entry(report, key).change((entry) => {
      const suppression = entry === undefined ? current : suppressionOf(entry);
      if (suppression === undefined || (onlyIf !== undefined && suppression.reason !== onlyIf)) return undefined;
      return { liftedAt: now.toISOString() };
    });
    return changed.outcome === 'written' ? 'lifted' : changed.value !== undefined && suppressionOf(changed.value) ? 'kept' : 'not-suppressed';
  }

  /** Records that the owners were told of `addresses` (bounces and complaints), so no later notice names them again. */
  async told(report: string, addresses: readonly string[], now: Date): Promise<void> {
    await Promise.all(
      addresses.map((address) =>
        this.entry(report, address.toLowerCase()).change((entry) => {
          const suppression = entry && suppressionOf(entry);
          return suppression && suppression.toldAt === undefined ? { ...suppression, toldAt: now.toISOString() } : undefined;
        }),
      ),
    );
  }

  /** The per-address entries of `addresses` (lower-case, each once), read a few at a time. */
  private async entries(report: string, addresses: readonly string[]): Promise<[string, Entry | undefined][]> {
    const keys = [...new Set(addresses.map((a) => a.toLowerCase()))];
    const read: [string, Entry | undefined][] = [];
    for (let i = 0; i < keys.length; i += READ_CONCURRENCY) {
      const batch = keys.slice(i, i + READ_CONCURRENCY);
      read.push(...(await Promise.all(batch.map(async (key): Promise<[string, Entry | undefined]> => [key, (await this.entry(report, key).read()).value]))));
    }
    return read;
  }

  private entry(report: string, key: string): LedgerRecord<Entry> {
    return ledgerRecord(this.ledger, ledgerKey('suppress', report, key), entrySchema, { what: `the suppression of ${key} for report "${report}"` });
  }

  /** The one entry per report of earlier releases. */
  private legacy(report: string): LedgerRecord<z.infer<typeof legacySchema>> {
    return ledgerRecord(this.ledger, ledgerKey('suppress', report), legacySchema, { what: `the suppressed recipients of report "${report}"` });
  }
}

function suppressionOf(entry: Entry): Suppression | undefined {
  return 'reason' in entry ? entry : undefined;
}

/** The owner's command that e-mails `address` the report again, quoted for a POSIX shell: people paste it. */
export function resubscribeCommand(report: string, address: string): string {
  return `npm run reports -- resubscribe ${shellQuoted(report)} ${shellQuoted(address)}`;
}
