import { daysAfter, DAY_MS } from '../../core/clock';
import type { PiObjectiveGroup, Sprint } from '../../planning-api/schemas';
import { epochToCalendarDate } from '../dataset/dates';
import { daysBetween } from './vocabulary';
import { messagesFor, type Messages } from '../../core/i18n/messages';

/** One sprint of a PI with its calendar days in the report's zone (00:00 UTC dates, see table.ts). */
export interface PiSprint {
  readonly title: string;
  readonly isIPSprint: boolean;
  readonly start: Date | null;
  readonly end: Date | null;
}

/**
 * Where a PI stands on the run's day. Business owners score actual business value at the end of the
 * PI (Inspect & Adapt, in the IP sprint), so predictability is judged only from the start of the
 * PI's last sprint on (`scored`); before that, a low figure is the normal state of a running PI.
 */
export interface PiPhase {
  readonly pi: string;
  /** Whether the sprints carry dates, so the phase could be worked out. */
  readonly known: boolean;
  readonly sprint: string | null;
  readonly inIpSprint: boolean;
  /** Calendar days left in the PI, the run's day included (0 once it has ended). */
  readonly daysLeft: number | null;
  readonly scored: boolean;
  /** The phase in words, its dates in the report's locale: `Sprint 3 (3/5) · 56 days left · IP sprint from 04/01/2027`. */
  readonly text: string;
}

/**
 * The sprints of a board in the board's order, with dates taken from the sprints the PI objectives'
 * items are planned in (the sprint metadata call carries no dates). Sprints no item is planned in
 * get dates by the cadence of the nearest dated sprint, as a PI's sprints are back to back.
 */
export function boardSprints(sprints: readonly Sprint[], groups: readonly PiObjectiveGroup[], timeZone: string): PiSprint[] {
  const dated = new Map<string, { start: number; end: number }>();
  for (const group of groups) {
    for (const objective of group.objectives ?? []) {
      for (const item of objective.linkedItems ?? []) {
        for (const entry of [item, ...(item.subItems ?? [])].flatMap((i) => (Array.isArray(i.teamsAndSprints) ? i.teamsAndSprints : []))) {
          const s = entry.sprint;
          if (s?.id && typeof s.startDate === 'number' && typeof s.endDate === 'number') dated.set(s.id, { start: s.startDate, end: s.endDate });
        }
      }
    }
  }
  // The end is the sprint's last instant, which can fall on the next calendar day in the report's
  // zone: a sprint's days are counted from its start, for its length rounded to whole days.
  const known = sprints.map((s) => {
    const d = dated.get(s.id);
    const start = d ? (epochToCalendarDate(d.start, timeZone) ?? null) : null;
    if (!d || !start) return null;
    return { start, end: daysAfter(start, Math.max(1, Math.round((d.end - d.start) / DAY_MS)) - 1) };
  });
  const anchor = known.findIndex((k) => k?.start && k.end);
  return sprints.map((s, i) => {
    const title = s.title ?? s.label ?? s.id;
    const isIPSprint = s.isIPSprint === true;
    const own = known[i];
    if (own?.start && own.end) return { title, isIPSprint, start: own.start, end: own.end };
    const a = anchor >= 0 ? known[anchor] : null;
    if (!a?.start || !a.end) return { title, isIPSprint, start: null, end: null };
    const length = daysBetween(a.start, a.end) + 1;
    const start = daysAfter(a.start, (i - anchor) * length);
    return { title, isIPSprint, start, end: daysAfter(start, length - 1) };
  });
}


/**
 * The phase of the PI on `today` (the run's calendar day). Without dated sprints the phase is
 * unknown; the PI then counts as scored only when the board's state says it is over. `day` writes a
 * calendar date (00:00 UTC) as the report's readers read one (ReaderFormat.calendarDate).
 */
export function piPhase(
  pi: string,
  sprints: readonly PiSprint[],
  today: Date,
  boardClosed: boolean,
  day: (date: Date) => string,
  messages: Messages = messagesFor('en'),
): PiPhase {
  const first = sprints[0];
  const last = sprints.at(-1);
  if (!first?.start || !last?.start || !last.end) {
    const text = messages.t(boardClosed ? 'pi.closed' : 'pi.unknown');
    return { pi, known: false, sprint: null, inIpSprint: false, daysLeft: null, scored: boardClosed, text };
  }
  const scored = today >= last.start;
  if (today > last.end) {
    return { pi, known: true, sprint: null, inIpSprint: false, daysLeft: 0, scored, text: messages.t('pi.ended', { date: day(last.end) }) };
  }
  const daysLeft = daysBetween(today, last.end) + 1;
  if (today < first.start) {
    const text = messages.t('pi.starts', { date: day(first.start), sprints: sprints.length });
    return { pi, known: true, sprint: null, inIpSprint: false, daysLeft, scored, text };
  }
  // By start dates: an end given as the last instant of a day can fall on the next day in the report's zone.
  const current = sprints.findLast((s) => s.start !== null && s.start <= today) ?? null;
  const development = sprints.filter((s) => !s.isIPSprint);
  const ip = sprints.find((s) => s.isIPSprint && s.start);
  const left = messages.t('pi.daysLeft', { days: daysLeft });
  let where: string;
  if (!current) where = messages.t('pi.beforeFirstSprint');
  else if (current.isIPSprint) where = messages.t('pi.inIpSprint', { sprint: current.title });
  else where = `${current.title} (${development.indexOf(current) + 1}/${development.length})`;
  const ipNote = ip?.start && !current?.isIPSprint ? ` · ${messages.t('pi.ipSprintFrom', { date: day(ip.start) })}` : '';
  return {
    pi,
    known: true,
    sprint: current?.title ?? null,
    inIpSprint: current?.isIPSprint === true,
    daysLeft,
    scored,
    text: `${where} · ${left}${ipNote}`,
  };
}
