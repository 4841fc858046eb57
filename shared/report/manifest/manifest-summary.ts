import * as z from 'zod';
import { COLUMN_TYPES, SUMMARY_ROLES } from '../../table/table';

/**
 * The manifest's `summary`: the Summary's sections and the figures later runs read back (the trends,
 * the deltas, a re-run's e-mail). Every object is loose and every figure optional, so a manifest an
 * older version wrote, or a newer one with more figures, still parses; an earlier run that does not
 * parse is left out of the trends and the comparison. The keys are listed in the order a run writes
 * them: the parsed manifest is what manifest.json holds, key for key.
 */

/** A cell as JSON carries it: a date is its ISO text, a list stays a list, a link keeps its address. */
const linkValue = z.looseObject({ text: z.string(), url: z.string(), web: z.string().exactOptional() });
const cellValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string()), linkValue]);

const summaryLine = z.looseObject({
  label: z.string(),
  value: cellValue.exactOptional(),
  type: z.enum(COLUMN_TYPES).exactOptional(),
  delta: z.string().exactOptional(),
  change: z.string().exactOptional(),
  since: z.string().exactOptional(),
  provisional: z.boolean().exactOptional(),
  link: linkValue.exactOptional(),
});

const summaryGrid = z.looseObject({
  columns: z.array(
    z.looseObject({ label: z.string(), type: z.enum(COLUMN_TYPES).exactOptional(), bar: z.boolean().exactOptional(), brief: z.boolean().exactOptional() }),
  ),
  rows: z.array(
    z.looseObject({
      values: z.array(cellValue),
      fills: z.array(z.string().nullable()).exactOptional(),
      more: z.looseObject({ kind: z.string(), count: z.number().int().nonnegative() }).exactOptional(),
    }),
  ),
});

export const summarySectionSchema = z.looseObject({
  heading: z.string(),
  role: z.enum(SUMMARY_ROLES).exactOptional(),
  lines: z.array(summaryLine),
  grid: summaryGrid.exactOptional(),
  smallPrint: z.string().exactOptional(),
});

/** Per table, what the server sent that no column holds, or in another shape (field-audit.ts). */
const auditFindings = <T extends z.ZodRawShape>(shape: T) => z.record(z.string(), z.array(z.looseObject({ path: z.string(), records: z.number(), ...shape })));

const percent = z.number().nullable();
const byId = <T extends z.ZodType>(value: T) => z.record(z.string(), value);

/** PI predictability of all boards or one (summary/pi-figures.ts). */
const predictability = z.looseObject({
  label: z.string(),
  committed: z.number(),
  uncommitted: z.number(),
  planned: z.number(),
  actual: z.number(),
  scored: z.boolean(),
  predictability: percent,
});

/** The figures of a run: the datasets' (risks … board items) and the outputs' (the trends' feature tallies). */
const figures = {
  unexportedFields: auditFindings({ reason: z.string().exactOptional() }).exactOptional(),
  shapeWarnings: auditFindings({ problem: z.string() }).exactOptional(),
  /**
   * Characters the PDF's fonts cannot draw, printed as "?", by place (`Summary › Needs attention`):
   * how many, their scripts, a sample (render/pdf/glyphs.ts). The owners are told (field-notice.ts).
   */
  unprintedText: z
    .array(z.looseObject({ where: z.string(), characters: z.number().int().positive(), scripts: z.array(z.string()), sample: z.string() }))
    .exactOptional(),
  /** Records the API sent more than once and the report holds once: rows per table, entries of the lists that choose boards, registers and portfolio themes (repeated-records.ts). */
  duplicatesDropped: z.record(z.string(), z.number().int().nonnegative()).exactOptional(),
  /** The risks: all, by level (with the register's colour), the open ones (summary/risk-figures.ts). */
  risks: z.number().exactOptional(),
  risksByLevel: byId(z.looseObject({ count: z.number(), color: z.string().nullable() })).exactOptional(),
  openRisks: z.looseObject({ open: z.number(), highOrCritical: z.number(), overdue: z.number(), withoutOwner: z.number() }).exactOptional(),
  /** OKR counts, the average objective completion and each strategic theme's progress (by key). */
  okr: z
    .looseObject({
      groups: z.number(),
      objectives: z.number(),
      keyResults: z.number(),
      averageObjectiveCompletion: percent,
      themeProgress: byId(percent),
    })
    .exactOptional(),
  /** Objectives per state, by strategic theme (summary/okr-figures.ts). */
  okrHealth: byId(z.looseObject({ progress: percent, objectives: z.number() })).exactOptional(),
  piPredictability: z.looseObject({ all: predictability, boards: byId(predictability) }).exactOptional(),
  /** Objectives and their average completion, by PI board. */
  piObjectives: byId(z.looseObject({ title: z.string().nullable(), objectives: z.number(), averageCompletion: percent })).exactOptional(),
  /** Features and stories, by board. */
  boardItems: byId(z.looseObject({ title: z.string().nullable(), features: z.number(), stories: z.number() })).exactOptional(),
  /** Features and their estimates, all and done, by board: the trends' burn-up (trends/figures.ts). */
  featureCompletion: byId(
    z.looseObject({ title: z.string(), features: z.number(), done: z.number(), estimate: z.number(), estimateDone: z.number() }),
  ).exactOptional(),
};

export const manifestFiguresSchema = z.looseObject(figures);

export const manifestSummarySchema = z.looseObject({
  title: z.string(),
  /** Data rows per table. */
  rows: z.record(z.string(), z.number().int().nonnegative()),
  ...figures,
  /** The Summary as the workbook shows it: the e-mail of a re-run and the deltas of later runs read it. */
  sections: z.array(summarySectionSchema),
  /**
   * The same Summary in each other language the run's readers read (recipients' and channels' own
   * `locale`), by locale, so a rerun from this manifest still writes each reader in their language.
   * Absent in manifests of older runs and of runs read in one language: those reread `sections`.
   */
  languages: z.record(z.string(), z.looseObject({ title: z.string(), sections: z.array(summarySectionSchema) })).exactOptional(),
});

export type ManifestFigures = z.infer<typeof manifestFiguresSchema>;
export type ManifestSummary = z.infer<typeof manifestSummarySchema>;
