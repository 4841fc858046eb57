import { recipientAddress } from '../../email/email-address';
import type { ReportDefinition } from './definition';

/**
 * The readers of a report's e-mail (docs/reports.md, "Recipients"): each address once (`to` first,
 * then `cc`), in its own language (default: the report's `locale`), with who it is in the planning
 * tool when the definition says. Every reader's e-mail is composed for that reader (messages/report-email.ts).
 */
export interface Reader {
  readonly address: string;
  /** The language and number format of this reader's e-mail (a canonical BCP 47 tag). */
  readonly locale: string;
  /** The reader in the planning tool (a user id or e-mail), when named. */
  readonly person?: string | undefined;
}

export function emailReaders(definition: Pick<ReportDefinition, 'email' | 'locale'>): Reader[] {
  const email = definition.email;
  if (!email) return [];
  const readers = new Map<string, Reader>();
  for (const recipient of [...email.to, ...(email.cc ?? [])]) {
    const address = recipientAddress(recipient);
    if (readers.has(address.toLowerCase())) continue;
    const own = typeof recipient === 'string' ? undefined : recipient;
    readers.set(address.toLowerCase(), { address, locale: own?.locale ?? definition.locale, ...(own?.person !== undefined && { person: own.person }) });
  }
  return [...readers.values()];
}

/** The languages a run writes in besides the report's own: its recipients' and chat channels' own `locale`s. */
export function readerLocales(definition: Pick<ReportDefinition, 'email' | 'locale' | 'delivery'>): string[] {
  const locales = [...emailReaders(definition).map((r) => r.locale), ...(definition.delivery?.channels ?? []).flatMap((c) => (c.locale ? [c.locale] : []))];
  return [...new Set(locales)].filter((locale) => locale !== definition.locale);
}
