import * as z from 'zod';
import { errorMessage } from '../../core/errors';
import { escapeHtml } from '../../email/email-content';
import type { OutgoingEmail } from '../../email/ses-mailer';
import { ledgerKey } from '../../ledger/ledger';
import { ledgerRecord } from '../../ledger/ledger-record';
import type { ReportDefinition } from '../../report/definition/definition';
import { operatorFindings, sameFindings } from '../../report/dataset/field-audit';
import type { Manifest } from '../../report/manifest/manifest';
import { UNPRINTED_ADVICE, unprintedFindings } from '../../report/manifest/unprinted-text';
import { applyNotice, type NoticeRule, type OwnerNoticePorts } from './owner-notice';

/**
 * Fields the planning API sends that no column holds (and values of another shape) are the report
 * owner's business, not its readers': readers cannot act on them. So is text the PDF cannot print
 * (a script its fonts lack, printed as "?"; render/pdf/glyphs.ts). They stay in the manifest and the
 * run list; the owners (`email.onFailure`; readers are not told) get one e-mail when the set changes (a new field appears, or one goes;
 * a part of the PDF, Summary or Trends, starts or stops losing characters of a script), not one per run. The last set told is kept in the ledger (`notify/<report>/fields`); it is a rule of the
 * owners' notice engine (owner-notice.ts), so two attempts of one run tell it once, and a send that
 * fails is tried again at the next run.
 */
const toldSchema = z.object({ findings: z.array(z.string()), runId: z.string() });
type Told = z.infer<typeof toldSchema>;

/** What the failure notice needs, but the time: the state told is a set of findings, not a streak. */
export type FieldNoticePorts = Omit<OwnerNoticePorts, 'now'>;

/** Tells the owners of a changed set of findings; `sent`, or why not. Never throws. */
export async function noticeFieldChanges(definition: ReportDefinition, manifest: Manifest, deps: FieldNoticePorts): Promise<'sent' | 'unchanged' | 'no-owners' | 'lost-race' | 'failed'> {
  try {
    const result = await applyNotice(fieldRule(definition, deps), manifest, (email) => deps.mail.send(email));
    if (result.outcome === 'not-sent') throw result.error;
    return result.outcome === 'recorded' ? 'no-owners' : result.outcome;
  } catch (error) {
    deps.log.error('field notice not sent', { report: definition.name, error: errorMessage(error) });
    return 'failed';
  }
}

/** The set of findings last told, and one e-mail when a run's set differs. */
function fieldRule(definition: ReportDefinition, deps: FieldNoticePorts): NoticeRule<Told, Manifest, OutgoingEmail> {
  // Owners named as such only: a report that names none would tell its readers, who cannot act on it.
  const owners = definition.email?.onFailure ?? [];
  return {
    record: ledgerRecord(deps.ledger, ledgerKey('notify', definition.name, 'fields'), toldSchema, { what: `the fields told of "${definition.name}"`, invalid: 'absent' }),
    transition: (previous, manifest) => {
      const before = previous?.findings ?? [];
      const findings = [...operatorFindings(manifest.summary), ...unprintedFindings(manifest.summary).keys].sort();
      if (sameFindings(before, findings)) return undefined;
      return { next: { findings, runId: manifest.runId }, message: owners.length > 0 ? fieldNotice(definition, manifest, before, findings, owners, deps.sender) : undefined };
    },
    initial: (manifest) => ({ findings: [], runId: manifest.runId }),
  };
}

const isPdf = (finding: string) => finding.startsWith('pdf: ');

function fieldNotice(definition: ReportDefinition, manifest: Manifest, before: readonly string[], now: readonly string[], owners: readonly string[], from: string): OutgoingEmail {
  const title = definition.title ?? definition.name;
  const added = now.filter((f) => !before.includes(f));
  const gone = before.filter((f) => !now.includes(f));
  const fields = { added: added.filter((f) => !isPdf(f)), gone: gone.filter((f) => !isPdf(f)) };
  const pdfChanged = [...added, ...gone].some(isPdf);
  const fieldLines =
    fields.added.length + fields.gone.length === 0
      ? []
      : [
          `Run ${manifest.runId} of "${title}" found the planning API's answers changed:`,
          ...(fields.added.length > 0 ? ['', 'Sent now, and held by no column (or of an unexpected shape):', ...fields.added.map((f) => `  ${f}`)] : []),
          ...(fields.gone.length > 0 ? ['', 'No longer sent:', ...fields.gone.map((f) => `  ${f}`)] : []),
          '',
          'The report\'s readers see no change. The manifest lists every such field (summary.unexportedFields, summary.shapeWarnings);',
          'a field worth a column is a change to the exporter (docs/architecture.md, "a column").',
        ];
  const lines = [...fieldLines, ...(pdfChanged ? pdfLines(manifest, title, fieldLines.length > 0) : []), '', 'You are told again only when this set changes.'];
  const text = `${lines.join('\n')}\n`;
  const subject =
    fieldLines.length > 0
      ? `${title}: the planning API sends ${fields.added.length > 0 ? 'fields the report does not hold' : 'fewer unexpected fields'}`
      : `${title}: the PDF ${now.some(isPdf) ? 'cannot print some characters' : 'prints every character again'}`;
  return { from, to: owners, subject, text, html: `<pre style="font-family:inherit;white-space:pre-wrap">${escapeHtml(text)}</pre>` };
}

/** What the PDF printed as "?" in this run, where, and what readers can do. */
function pdfLines(manifest: Manifest, title: string, after: boolean): string[] {
  const unprinted = unprintedFindings(manifest.summary).lines;
  const head = `${after ? '' : `Run ${manifest.runId} of "${title}": `}the PDF`;
  if (unprinted.length === 0) return [...(after ? [''] : []), `${head} prints every character again.`];
  return [
    ...(after ? [''] : []),
    `${head} printed characters its fonts cannot draw as "?" (scripts beyond Latin, Greek, Cyrillic and Hebrew):`,
    ...unprinted.map((line) => `  ${line}`),
    '',
    `${UNPRINTED_ADVICE} The manifest lists them (summary.unprintedText).`,
  ];
}
