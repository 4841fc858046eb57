import { toArray } from '../../core/async-iterables';
import { SelectorNotFoundError } from '../../core/errors';
import type { CustomField, Risk, RiskRegister } from '../../planning-api/schemas';
import { epochToCalendarDate, parseApiDate } from '../dates';
import { runDay, type Dataset, type DatasetContext, type TableOutput } from '../dataset';
import { RiskFigures } from '../summary/risk-figures';
import { SHEET_TITLES } from './labels';
import type { CellValue, Column, ColumnType, TableDefinition, TableRow } from '../../table/table';
import type { PeopleDirectory } from '../people';
import { col, columnSlug, dateOrText, joinList, listOf } from './columns';

/** Fixed columns of the `risks` table; custom-field columns (`cf_...`) follow them. */
export const RISK_COLUMNS: readonly Column[] = [
  col('register_key', 'text', 'Key of the risk register', 12),
  col('register_title', 'text', 'Title of the risk register', 24),
  col('key', 'text', 'Risk key (register key, hyphen, number)', 12),
  col('id', 'text', 'Internal risk id', 12),
  col('title', 'text', 'Risk title', 40),
  col('status', 'text', 'Risk status', 14),
  col('impact', 'text', 'Impact level from the register matrix', 12),
  col('probability', 'text', 'Probability level from the register matrix', 12),
  col('risk_level', 'text', 'Computed risk level; the worksheet cell is filled with the level colour', 14),
  col('risk_level_color', 'text', 'Hex colour of the risk level', 10),
  col('raised_date', 'date', 'Date the risk was raised'),
  col('resolution_date', 'date', 'Resolution date (empty when not resolved)'),
  col('responsible', 'text', 'Display name of the responsible user', 20),
  col('created_by', 'text', 'Login of the user who created the risk', 20),
  col('watchers', 'list', 'Display names of watchers', 24),
  col('linked_items', 'list', 'Keys of linked board items', 20),
  col('teams', 'list', 'Board teams', 20),
  col('sprints', 'list', 'Board sprints', 20),
  col('description', 'text', 'Risk description (multi-line)', 50),
  col('mitigation', 'text', 'Mitigation actions (multi-line)', 50),
];

const RISK_LEVEL_COLUMN = RISK_COLUMNS.findIndex((c) => c.key === 'risk_level');

interface CustomColumn {
  readonly title: string;
  readonly column: Column;
}

/** Column type for a custom field type; unknown types are text, rendered readably. */
function customColumnType(fieldType: string | null | undefined): ColumnType {
  switch ((fieldType ?? '').toLowerCase()) {
    case 'number':
    case 'numeric':
    case 'decimal':
    case 'integer':
      return 'number';
    case 'date':
    case 'datepicker':
      return 'date';
    case 'checkbox':
    case 'boolean':
      return 'boolean';
    default:
      return 'text';
  }
}

/** Readable text of any custom-field value: never `[object Object]`. */
export function customValueText(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return joinList(value.map((v) => customValueText(v)));
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of ['fullName', 'displayName', 'name', 'title', 'label', 'value', 'key', 'id']) {
      const candidate = record[key];
      if (typeof candidate === 'string' || typeof candidate === 'number') return String(candidate);
    }
    return JSON.stringify(value);
  }
  // JSON cannot carry anything else (functions, symbols); nothing readable to show.
  return null;
}

export function customValue(field: CustomField, type: ColumnType): CellValue {
  const value = field.value;
  if (type === 'number') {
    const n = typeof value === 'number' ? value : Number(customValueText(value));
    return Number.isFinite(n) && customValueText(value) !== null ? n : customValueText(value);
  }
  if (type === 'date') {
    // Date pickers that send epoch milliseconds mean a calendar day; read it in UTC, as the API's text dates are.
    if (typeof value === 'number') return epochToCalendarDate(value, 'UTC') ?? null;
    return dateOrText(customValueText(value), parseApiDate);
  }
  if (type === 'boolean') {
    if (typeof value === 'boolean') return value;
    const text = customValueText(value);
    return text === 'true' ? true : text === 'false' ? false : text;
  }
  return customValueText(value);
}

/** Custom-field columns in a stable order (by title), keys `cf_<slug>` made unique. */
export function customColumns(risks: readonly Risk[]): CustomColumn[] {
  const byTitle = new Map<string, string | null | undefined>();
  for (const risk of risks) {
    for (const field of risk.customFields ?? []) {
      const title = field.title ?? field.id;
      if (title && !byTitle.has(title)) byTitle.set(title, field.type);
    }
  }
  const taken = new Set(RISK_COLUMNS.map((c) => c.key));
  return [...byTitle.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([title, type]) => {
      const base = `cf_${columnSlug(title)}`;
      let key = base;
      for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
      taken.add(key);
      return {
        title,
        // The field's own title heads the column in the workbook; the key stays the CSV contract.
        column: { ...col(key, customColumnType(type), `Custom field "${title}" (${type ?? 'unknown type'})`, 20), label: title },
      };
    });
}

/** Every id → name pair a risk mentions: responsible person, watchers, user-picker fields. */
function learnPeople(risk: Risk, people: PeopleDirectory): void {
  people.learn(risk.responsible?.id, risk.responsible?.user);
  for (const w of risk.watcherList ?? []) people.learn(w.id, w.Watcher);
  for (const field of risk.customFields ?? []) {
    const v = field.value as { id?: unknown; fullName?: unknown } | null | undefined;
    if (v && typeof v === 'object' && typeof v.id === 'string' && typeof v.fullName === 'string') people.learn(v.id, v.fullName);
  }
}

export function riskRow(register: RiskRegister, risk: Risk, custom: readonly CustomColumn[]): TableRow {
  const values: CellValue[] = [
    register.key ?? null,
    register.title ?? risk.riskRegister?.riskRegister ?? null,
    risk.key ?? null,
    risk.id,
    risk.title ?? null,
    risk.status?.status ?? null,
    risk.impact ?? null,
    risk.probability ?? null,
    risk.riskLevel?.title ?? null,
    risk.riskLevel?.color ?? null,
    dateOrText(risk.raisedDate, parseApiDate),
    dateOrText(risk.resolutionDate, parseApiDate),
    risk.responsible?.user ?? null,
    risk.createdBy ?? null,
    listOf(risk.watcherList?.map((w) => w.Watcher)),
    listOf(risk.linkedItems?.map((l) => l.key ?? l.id)),
    listOf(risk.boardTeams?.map((t) => t.teamTitle)),
    listOf(risk.boardSprints?.map((s) => s.sprintTitle)),
    risk.riskDesc ?? null,
    risk.mitigationActions ?? null,
  ];
  const fields = new Map((risk.customFields ?? []).map((f) => [f.title ?? f.id, f] as const));
  for (const c of custom) {
    const field = fields.get(c.title);
    values.push(field ? customValue(field, c.column.type) : null);
  }
  const color = risk.riskLevel?.color;
  return color ? { values, fill: { column: RISK_LEVEL_COLUMN, color } } : { values };
}

function matches(register: RiskRegister, selector: string): boolean {
  return register.id === selector || register.key === selector;
}

/**
 * The `risks` dataset. Risks are collected before the table starts because the custom-field
 * columns are only known once every risk has been seen (a stable header needs them all); a
 * register holds hundreds to a few thousand risks, so this is small next to board items.
 */
export function risksDataset(ctx: DatasetContext): Dataset {
  const selectors = ctx.definition.datasets.risks?.registers;
  let registers: RiskRegister[] = [];
  const figures = new RiskFigures(runDay(ctx), SHEET_TITLES.risks ?? 'risks', ctx.definition.datasets.risks?.ownerField);
  let total = 0;

  async function selectRegisters(): Promise<RiskRegister[]> {
    const visible = await toArray(ctx.source.listRiskRegisters());
    if (!selectors) return visible;
    return selectors.map((selector) => {
      const found = visible.find((r) => matches(r, selector));
      if (!found) {
        throw new SelectorNotFoundError(
          `risks.registers: no visible risk register has the id or key "${selector}". ` +
            `Visible registers: ${visible.map((r) => r.key ?? r.id).join(', ') || '(none)'}.`,
        );
      }
      return found;
    });
  }

  async function* tables(): AsyncIterable<TableOutput> {
    registers = await selectRegisters();
    const perRegister = await Promise.all(
      registers.map(async (register) => ({ register, risks: await toArray(ctx.source.listRisks(register.id)) })),
    );
    const custom = customColumns(perRegister.flatMap((r) => r.risks));
    const table: TableDefinition = { name: 'risks', columns: [...RISK_COLUMNS, ...custom.map((c) => c.column)] };
    async function* rows(): AsyncIterable<TableRow> {
      for (const { register, risks } of perRegister) {
        for (const risk of risks) {
          total++;
          if (ctx.people) learnPeople(risk, ctx.people);
          figures.add(register, risk, total + 1);
          yield riskRow(register, risk, custom);
        }
      }
    }
    yield { table, rows: rows() };
  }

  return {
    name: 'risks',
    tables,
    resolvedSelectors: () => ({
      registers: registers.map((r) => ({ id: r.id, key: r.key ?? null, title: r.title ?? null })),
    }),
    summary: () => figures.sections(),
    figures: () => figures.figures(),
  };
}
