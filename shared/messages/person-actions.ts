import type { ReaderFormat } from '../core/format';
import type { Reader } from '../report/definition/readers';
import type { ExportResult } from '../report/run/result';
import { attentionRows, attentionSection, type AttentionItem } from '../report/summary/attention';
import type { SummarySection } from '../table/table';

/**
 * Each person's own actions (issue 50, item 7): a reader who is someone in the planning tool (their
 * recipient's `person`, a user id or e-mail, or their address matched to an owner the run met) gets
 * an e-mail that opens with what is theirs: the items of "Needs attention" they own (risks, OKRs and
 * PI objectives that need them), then the report as every reader reads it. A reader who owns nothing
 * (or a run read back from its manifest, which keeps no owners) gets the report as today.
 */
export function ownedBy(result: ExportResult, reader: Reader): readonly AttentionItem[] {
  const owned = result.owned;
  if (!owned) return [];
  const who = new Set([reader.person, reader.person === undefined ? undefined : owned.people[reader.person], reader.person === undefined ? reader.address : undefined].flatMap((n) => (n ? [n.toLowerCase()] : [])));
  return owned.attention.filter((item) => item.owner !== null && who.has(item.owner.toLowerCase()));
}

/** "Yours to act on": the reader's items, as "Needs attention" lists them (the first of each kind, then "n more"). */
export function ownSections(items: readonly AttentionItem[]): ((format: ReaderFormat) => SummarySection[]) | undefined {
  if (items.length === 0) return undefined;
  return (format) => {
    const rows = attentionRows(items, (_kind, count) => format.t('attention.moreYours', { count }));
    return [{ ...attentionSection(rows, format.messages), heading: format.t('attention.yours', { count: items.length }) }];
  };
}
