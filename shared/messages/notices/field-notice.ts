import * as z from 'zod';
import { errorMessage } from '../../core/errors';
import type { Log } from '../../core/logger';
import { escapeHtml } from '../../email/email-content';
import type { OutgoingEmail } from '../../email/ses-mailer';
import { ledgerKey, type Ledger } from '../../ledger/ledger';
import type { ReportDefinition } from '../../report/definition/definition';
import { operatorFindings, sameFindings } from '../../report/dataset/field-audit';
import type { Manifest } from '../../report/manifest/manifest';

/**
 * Fields the planning API sends that no column holds (and values of another shape) are the report
 * owner's business, not its readers': readers cannot act on them. They stay in the manifest and the
 * run list; the owners (`email.onFailure`; readers are not told) get one e-mail when the set changes (a new field appears, or one goes), not
 * one per run. The last set told is kept in the ledger (`notify/<report>/fields`), changed by
 * compare-and-swap, so two attempts of one run tell it once.
 */
const toldSchema = z.object({ findings: z.array(z.string()), runId: z.string() });

export interface FieldNoticeDependencies {
  readonly ledger: Ledger;
  readonly send: (email: OutgoingEmail) => Promise<unknown>;
  readonly from: string;
  readonly log: Log;
}

/** Tells the owners of a changed set of findings; `sent`, or why not. Never throws. */
export async function noticeFieldChanges(definition: ReportDefinition, manifest: Manifest, deps: FieldNoticeDependencies): Promise<'sent' | 'unchanged' | 'no-owners' | 'lost-race' | 'failed'> {
  try {
    const key = ledgerKey('notify', definition.name, 'fields');
    const findings = operatorFindings(manifest.summary);
    const entry = await deps.ledger.get(key);
    const told = toldSchema.safeParse(entry?.value);
    const before = told.success ? told.data.findings : [];
    if (sameFindings(before, findings)) return 'unchanged';
    const version = entry?.version ?? 0;
    if (!(await deps.ledger.put(key, { findings, runId: manifest.runId }, version))) return 'lost-race';
    // Owners named as such only: a report that names none would tell its readers, who cannot act on it.
    const owners = definition.email?.onFailure ?? [];
    if (owners.length === 0) return 'no-owners';
    try {
      await deps.send(fieldNotice(definition, manifest, before, findings, owners, deps.from));
    } catch (error) {
      // Put back the set told before, so the next run tells the owners (as failure-notice.ts does);
      // if another run moved on meanwhile, its set stands.
      await deps.ledger.put(key, { findings: before, runId: told.success ? told.data.runId : manifest.runId }, version + 1);
      throw error;
    }
    return 'sent';
  } catch (error) {
    deps.log.error('field notice not sent', { report: definition.name, error: errorMessage(error) });
    return 'failed';
  }
}

function fieldNotice(definition: ReportDefinition, manifest: Manifest, before: readonly string[], now: readonly string[], owners: readonly string[], from: string): OutgoingEmail {
  const title = definition.title ?? definition.name;
  const added = now.filter((f) => !before.includes(f));
  const gone = before.filter((f) => !now.includes(f));
  const lines = [
    `Run ${manifest.runId} of "${title}" found the planning API's answers changed:`,
    ...(added.length > 0 ? ['', 'Sent now, and held by no column (or of an unexpected shape):', ...added.map((f) => `  ${f}`)] : []),
    ...(gone.length > 0 ? ['', 'No longer sent:', ...gone.map((f) => `  ${f}`)] : []),
    '',
    'The report\'s readers see no change. The manifest lists every such field (summary.unexportedFields, summary.shapeWarnings);',
    'a field worth a column is a change to the exporter (docs/architecture.md, "a column"). You are told again only when this set changes.',
  ];
  const text = `${lines.join('\n')}\n`;
  return {
    from,
    to: owners,
    subject: `${title}: the planning API sends ${added.length > 0 ? 'fields the report does not hold' : 'fewer unexpected fields'}`,
    text,
    html: `<pre style="font-family:inherit;white-space:pre-wrap">${escapeHtml(text)}</pre>`,
  };
}
