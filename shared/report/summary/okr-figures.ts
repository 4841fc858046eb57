import { planningLink } from './planning-links';
import type { OkrObjective, StrategicTheme } from '../../planning-api/schemas';
import type { SummaryGridRow, SummarySection } from '../../table/table';
import { FILLS, okrHealth, rowLink } from './vocabulary';
import { attentionRows, attentionSection, type AttentionItem } from './attention';
import type { Messages } from '../../core/i18n/messages';
import type { OwnWork } from './own-work';

/**
 * OKR progress for the whole report: the average of its strategic themes' progress, each theme
 * counting once (a theme the tool gives no progress is left out). The Summary, the trends and the
 * e-mail all compute it here, so they print the same number under the same name.
 */
export function okrProgress(themes: readonly (number | null)[]): number | null {
  const known = themes.filter((v): v is number => v !== null);
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0) / known.length;
}

interface ThemeCounts {
  readonly theme: StrategicTheme;
  /** The theme's owners by name: who answers for its objectives. */
  readonly owners: readonly string[];
  progress: number | null;
  objectives: number;
  notStarted: number;
  onTrack: number;
  atRisk: number;
  offTrack: number;
  done: number;
  /** A status none of the above names: counted, so the states add up to the objectives. */
  other: number;
}

/**
 * The Summary's OKR figures, fed while the OKR rows stream: progress per strategic theme with its
 * objectives counted by every state (not started, on track, at risk, off track, done; any other
 * status in its own column), so the states add up to the objectives; and the off-track objectives.
 */
export class OkrFigures {
  readonly #themes = new Map<string, ThemeCounts>();
  readonly #offTrack: { label: string; theme: string; owners: readonly string[]; completion: number | null; row: number; web: string | undefined }[] = [];

  /**
   * `linkTemplate`: `links.okrUrl` of the definition, the objective's address in the planning tool;
   * `percent`: how the run writes a percentage for its readers (core/format.ts).
   */
  constructor(
    private readonly sheet: string,
    private readonly percent: (value: number) => string,
    /** The report's words (the reader format's). */
    private readonly messages: Messages,
    private readonly linkTemplate?: string,
  ) {}

  /** `owners`: the theme's owners by name (an objective has none of its own in the API). */
  theme(theme: StrategicTheme, progress: number | null, owners: readonly string[] = []): void {
    this.#themes.set(theme.id, { theme, owners, progress, objectives: 0, notStarted: 0, onTrack: 0, atRisk: 0, offTrack: 0, done: 0, other: 0 });
  }

  /** `row`: the objective's row in the OKR sheet (the header is row 1); `work`: the run's own-work join, told of each objective behind. */
  objective(theme: StrategicTheme, objective: OkrObjective, row: number, work?: OwnWork): void {
    const counts = this.#themes.get(theme.id);
    if (!counts) return;
    counts.objectives++;
    const health = okrHealth(objective.status?.status);
    if (work && (health === 'off-track' || health === 'at-risk')) {
      const label = `${objective.key ?? ''} ${objective.title ?? ''}`.trim() || objective.id;
      const web = planningLink(this.linkTemplate, { id: objective.id, key: objective.key ?? undefined });
      const themeName = theme.title ?? theme.key ?? theme.id;
      work.okr({ item: rowLink(label, this.sheet, row, web), theme: themeName, owners: counts.owners, health, completion: objective.completionPct ?? null });
    }
    if (health === 'not-started') counts.notStarted++;
    if (health === 'on-track') counts.onTrack++;
    if (health === 'at-risk') counts.atRisk++;
    if (health === 'done') counts.done++;
    if (health === 'other') counts.other++;
    if (health === 'off-track') {
      counts.offTrack++;
      this.#offTrack.push({
        label: `${objective.key ?? ''} ${objective.title ?? ''}`.trim() || objective.id,
        theme: theme.title ?? theme.key ?? theme.id,
        owners: counts.owners,
        completion: objective.completionPct ?? null,
        web: planningLink(this.linkTemplate, { id: objective.id, key: objective.key ?? undefined }),
        row,
      });
    }
  }

  sections(): SummarySection[] {
    const others = [...this.#themes.values()].some((t) => t.other > 0);
    const rows: SummaryGridRow[] = [...this.#themes.values()].map((t) => ({
      values: [
        `${t.theme.key ?? ''} ${t.theme.title ?? ''}`.trim() || t.theme.id, t.progress, t.objectives,
        t.notStarted, t.onTrack, t.atRisk, t.offTrack, t.done, ...(others ? [t.other] : []),
      ],
      fills: [null, null, null, null, null, t.atRisk > 0 ? FILLS.warn : null, t.offTrack > 0 ? FILLS.bad : null, null],
    }));
    const overall = okrProgress([...this.#themes.values()].map((t) => t.progress));
    return [
      {
        heading: this.messages.t('term.okrProgressByTheme'),
        role: 'headline',
        // The report's one OKR figure above its themes', as the trends and the e-mail name it.
        lines: [{ label: this.messages.t('term.okrProgress'), value: overall, type: 'percent' }],
        grid: {
          columns: [
            { label: this.messages.t('term.strategicTheme'), short: this.messages.t('okrGrid.theme') },
            { label: this.messages.t('term.okrProgress'), short: this.messages.t('okrGrid.progress'), type: 'percent', bar: true },
            { label: this.messages.t('term.objectives'), type: 'integer', brief: true },
            { label: this.messages.t('term.notStarted'), short: this.messages.t('okrGrid.notStarted'), type: 'integer' },
            { label: this.messages.t('term.onTrack'), short: this.messages.t('okrGrid.onTrack'), type: 'integer' },
            { label: this.messages.t('term.atRisk'), short: this.messages.t('okrGrid.atRisk'), type: 'integer' },
            { label: this.messages.t('term.offTrack'), short: this.messages.t('okrGrid.offTrack'), type: 'integer' },
            { label: this.messages.t('term.done'), short: this.messages.t('okrGrid.done'), type: 'integer' },
            ...(others ? [{ label: this.messages.t('term.otherStatus'), short: this.messages.t('okrGrid.otherStatus'), type: 'integer' as const }] : []),
          ],
          rows,
        },
      },
      attentionSection(attentionRows(this.attentionItems(), (_kind, count) => this.messages.t('attention.moreOffTrack', { count })), this.messages),
    ];
  }

  /** The off-track objectives in the order they were read, each with its theme's owners. */
  attentionItems(): AttentionItem[] {
    return this.#offTrack.map((o) => ({
      kind: 'OKR',
      item: rowLink(o.label, this.sheet, o.row, o.web),
      why: [
        this.messages.t('term.offTrack'),
        ...(o.completion === null ? [] : [this.messages.t('attention.complete', { percent: this.percent(o.completion) })]),
        o.theme,
        o.owners.length === 0 ? this.messages.t('attention.noOwner') : this.messages.t('term.labelled', { label: this.messages.t('term.owner'), value: o.owners.join(', ') }),
      ].join(' · '),
      owner: o.owners.length === 0 ? null : o.owners.join(', '),
      level: null,
      due: null,
      daysOverdue: null,
      where: o.theme,
      linked: null,
    }));
  }

  figures(): Record<string, unknown> {
    return {
      okrHealth: Object.fromEntries(
        [...this.#themes.values()].map((t) => [
          t.theme.key ?? t.theme.id,
          { progress: t.progress, objectives: t.objectives, notStarted: t.notStarted, onTrack: t.onTrack, atRisk: t.atRisk, offTrack: t.offTrack, done: t.done, other: t.other },
        ]),
      ),
    };
  }
}
