import type { ReaderFormat } from '../core/format';
import type { Reader } from '../report/definition/readers';
import type { ExportResult } from '../report/run/result';
import { attentionRows, attentionSection, type AttentionItem } from '../report/summary/attention';
import { personWork, type PersonWork } from '../report/summary/own-work';
import type { SummarySection } from '../table/table';

/**
 * Each person's own actions (issue 50, item 7): a reader who is someone in the planning tool (their
 * recipient's `person`, a user id or e-mail, or their address matched to an owner the run met) gets
 * an e-mail that opens with what is theirs: the items of "Needs attention" they own (risks, OKRs and
 * PI objectives that need them), the business value their risks put at risk (the PI objectives not
 * done that their open risks are linked to, through the objectives' items) and the OKRs of their
 * themes that are behind; then the report as every reader reads it. A reader who owns nothing (or a
 * run read back from its manifest, which keeps no owners) gets the report as today.
 */
export interface ReaderOwned {
  readonly attention: readonly AttentionItem[];
  readonly work: PersonWork | undefined;
}

export function ownedBy(result: ExportResult, reader: Reader): ReaderOwned {
  const owned = result.owned;
  if (!owned) return { attention: [], work: undefined };
  const person = reader.person;
  const names = person === undefined ? [reader.address] : [person, owned.people[person]];
  const who = new Set(names.flatMap((n) => (n ? [n.toLowerCase()] : [])));
  const isThem = (owner: string) => who.has(owner.toLowerCase());
  // An OKR's owners are its theme's, listed together ("Ada Lovelace, Ben Ng"): any of them is one.
  const attention = owned.attention.filter((item) => item.owner !== null && item.owner.split(', ').some(isThem));
  return { attention, work: owned.work && personWork(owned.work, isThem) };
}

/** "Yours to act on", or nothing for a reader who owns nothing: their items, the business value at risk, their OKRs behind. */
export function ownSections(owned: ReaderOwned): ((format: ReaderFormat) => SummarySection[]) | undefined {
  const { attention, work } = owned;
  const hasWork = work !== undefined && (work.risks.length > 0 || work.okrs.length > 0);
  if (attention.length === 0 && !hasWork) return undefined;
  return (format) => [...attentionOf(attention, format), ...(work ? [...valueSections(work, format), ...okrSection(work, format)] : [])];
}

/** The reader's items of "Needs attention", as that section lists them (the first of each kind, then "n more"). */
function attentionOf(items: readonly AttentionItem[], format: ReaderFormat): SummarySection[] {
  if (items.length === 0) return [];
  const rows = attentionRows(items, (_kind, count) => format.t('attention.moreYours', { count }));
  return [{ ...attentionSection(rows, format.messages), heading: format.t('attention.yours', { count: items.length }) }];
}

/**
 * The planned BV of the PI objectives their risks are linked to (each objective once), each risk with
 * what it puts at risk, then those objectives: the figure a reader can recount from the CSVs.
 */
function valueSections(work: PersonWork, format: ReaderFormat): SummarySection[] {
  if (work.risks.length === 0) return [];
  const t = format.t.bind(format);
  return [
    {
      heading: t('own.value'),
      role: 'detail',
      lines: [{ label: t('own.valueLine', { count: work.objectives.length }), value: work.value, type: 'number' }],
      grid: {
        // Two columns on a phone (a third squeezed the headers into broken words at 390 px): the count is brief.
        columns: [{ label: t('own.risk'), type: 'link' }, { label: t('term.piObjectives'), type: 'integer', brief: true }, { label: t('term.plannedBv'), type: 'number' }],
        rows: work.risks.map((r) => ({ values: [r.risk.item, r.objectives.length, r.value] })),
      },
    },
    {
      heading: t('own.objectivesAtRisk'),
      role: 'detail',
      lines: [],
      grid: {
        columns: [
          { label: t('column.objective'), type: 'link' }, { label: t('term.board'), brief: true },
          { label: t('column.completion'), type: 'percent', brief: true }, { label: t('term.plannedBv'), type: 'number' },
        ],
        rows: work.objectives.map((o) => ({ values: [o.item, o.board, o.completion, o.planned] })),
      },
    },
  ];
}

/** The OKRs of the reader's themes that are off track or at risk. */
function okrSection(work: PersonWork, format: ReaderFormat): SummarySection[] {
  if (work.okrs.length === 0) return [];
  const t = format.t.bind(format);
  return [{
    heading: t('own.okrsBehind', { count: work.okrs.length }),
    role: 'detail',
    lines: [],
    grid: {
      columns: [{ label: t('column.objective'), type: 'link' }, { label: t('column.status') }, { label: t('column.completion'), type: 'percent', brief: true }, { label: t('term.strategicTheme'), brief: true }],
      rows: work.okrs.map((o) => ({ values: [o.item, t(o.health === 'off-track' ? 'term.offTrack' : 'term.atRisk'), o.completion, o.theme] })),
    },
  }];
}
