import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { ledgerKey, type Ledger } from '../../ledger/ledger';
import { ledgerRecord } from '../../ledger/ledger-record';

/**
 * Who tells a report's owners of its newly suppressed recipients (mail-events.ts): one invocation at
 * a time holds the report's claim (`suppress/<report>/owners-notice`, beside the suppressions, so
 * the mail-events function needs no other part of the ledger; no address is spelt without an `@`).
 * A claim older than HELD_MS is taken over: its holder died before giving it back (the function's
 * timeout is far shorter).
 */
export const HELD_MS = 3 * 60_000;

const claimSchema = z.union([z.object({ holder: z.string(), at: z.string() }), z.object({ releasedAt: z.string() })]);

export interface NoticeClaim {
  /** The claim if this caller got it; undefined when another holds it (and tells the owners). */
  take(now: Date): Promise<HeldNoticeClaim | undefined>;
}

export interface HeldNoticeClaim {
  /** Gives the claim back (while it is still this caller's), so the next burst's first event takes it. */
  release(now: Date): Promise<void>;
}

export function ownersNoticeClaim(ledger: Ledger, report: string): NoticeClaim {
  const record = ledgerRecord(ledger, ledgerKey('suppress', report, 'owners-notice'), claimSchema, {
    what: `the owners' notice claim of report "${report}"`,
    invalid: 'absent',
  });
  return {
    async take(now) {
      const token = randomBytes(9).toString('base64url');
      const held = (current: z.infer<typeof claimSchema> | undefined) => current !== undefined && 'holder' in current && now.getTime() - Date.parse(current.at) < HELD_MS;
      const taken = await record.change((current) => (held(current) ? undefined : { holder: token, at: now.toISOString() }), { lost: 'answer' });
      if (taken.outcome !== 'written') return undefined;
      return {
        async release(at) {
          await record.change((current) => (current !== undefined && 'holder' in current && current.holder === token ? { releasedAt: at.toISOString() } : undefined), { lost: 'answer' });
        },
      };
    },
  };
}
