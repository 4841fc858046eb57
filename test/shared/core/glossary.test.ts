import { messagesFor } from '../../../shared/core/i18n/messages';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusCategoryText, readerFormat } from '../../../shared/core/format';
import { GLOSSARY, term } from '../../../shared/core/glossary';
import { changesSection } from '../../../shared/email/changes-section';
import { changesDigest } from '../../../shared/report/changes/digest';
import { parseReportDefinition } from '../../../shared/report/definition/definition';
import { runOf } from '../../support/run-builder';
import { tableTitle } from '../../../shared/report/names';
import type { ExportResult } from '../../../shared/report/run/result';
import { tablesOf } from '../../../shared/report/tables/registry';
import { emailTrends } from '../../../shared/report/trends/email';
import { trendsSheetContent } from '../../../shared/report/trends/sheet';
import { startSimulator, type RunningSimulator } from '../../../simulator/index';

/**
 * Every label a reader sees beside a figure (the Summary's headings, line labels and table headers,
 * the Trends' titles and columns, the e-mail's trend and change labels, which the chat messages and
 * the run page take from the same sections) is either a glossary term or the planning tool's own
 * words (a status, a level, a board's title). A figure named any other way fails here.
 */
describe('the readers\' vocabulary (glossary.ts)', () => {
  let sim: RunningSimulator;
  let root: string;
  let second: ExportResult;
  /** Every text the simulator serves: a label made of these is the tool's own words. */
  let served: Set<string>;

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'demo' });
    root = await mkdtemp(join(tmpdir(), 'glossary-'));
    const definition = parseReportDefinition({ name: 'weekly', formats: ['csv'], datasets: { risks: {}, okrs: {}, piObjectives: {}, boardItems: {} } });
    const run = (day: string) =>
      runOf(definition).in(root).against(sim).at(`${day}T06:00:00Z`).export();
    await run('2026-11-16');
    second = await run('2026-11-23');
    served = new Set();
    const walk = (v: unknown): void => {
      if (typeof v === 'string') served.add(v).add(statusCategoryText(v));
      else if (Array.isArray(v)) v.forEach(walk);
      else if (typeof v === 'object' && v !== null) Object.values(v).forEach(walk);
    };
    walk(sim.tenant);
  }, 120_000);
  afterAll(async () => {
    await sim.close();
    await rm(root, { recursive: true, force: true });
  });

  /** Glossary labels as patterns: a `{placeholder}` stands for the data it is filled with. */
  const patterns = Object.values(GLOSSARY).map(
    (t) => new RegExp(`^${t.label.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '.+')}$`),
  );
  const tableTitles = new Set(tablesOf().map((t) => tableTitle(t.name)));
  /** Labels that are neither a term nor the tool's words (nor a table's title). */
  const unknown = (labels: readonly string[]) =>
    [...new Set(labels)].filter((label) => !patterns.some((p) => p.test(label)) && !served.has(label) && !tableTitles.has(label));

  it('names every figure and heading of the Summary by a glossary term', () => {
    const labels = second.summary.sections.flatMap((s) => [s.heading, ...s.lines.map((l) => l.label), ...(s.grid?.columns.map((c) => c.label) ?? [])]);
    expect(labels.length).toBeGreaterThan(60);
    expect(unknown(labels)).toEqual([]);
  });

  it('names the Trends\' tables, their columns and the e-mail\'s trend figures by glossary terms', () => {
    const trends = second.trends!;
    const sheet = trendsSheetContent(trends, messagesFor('en-GB'));
    const labels = [
      sheet.heading,
      ...sheet.blocks.flatMap((b) => [b.title, b.categoryLabel, ...b.columns.map((c) => c.label)]),
      ...emailTrends(trends).series.map((s) => s.label),
    ];
    expect(emailTrends(trends).series.map((s) => s.label)).toContain(term('okrProgress'));
    expect(unknown(labels)).toEqual([]);
  });

  it('names the e-mail\'s changes by glossary terms (a changed row is named by its own key and title)', () => {
    const digest = changesDigest(second.changes, readerFormat('en-GB', 'UTC'));
    const section = changesSection(digest, readerFormat('en-GB', 'UTC'));
    // The counts first, "More" last; the lines between are changed rows, named by table, key and title.
    const labels = [section.heading, section.lines[0]!.label, ...(digest.leftOut.length > 0 ? [section.lines.at(-1)!.label] : [])];
    expect(unknown(labels)).toEqual([]);
  });

  it('prints OKR progress in the Summary as the average of the themes\' progress, the number the e-mail and the trends show', () => {
    // Above the themes' own, in the headline section: one OKR figure, one name.
    const themes = second.summary.sections.find((s) => s.heading === term('okrProgressByTheme'))!;
    const progress = themes.lines.find((l) => l.label === term('okrProgress'))!.value as number;
    const perTheme = themes.grid!.rows.map((r) => r.values[1] as number);
    expect(progress).toBeCloseTo(perTheme.reduce((a, b) => a + b, 0) / perTheme.length, 9);
    const email = emailTrends(second.trends!).series.find((s) => s.label === term('okrProgress'))!;
    expect(email.points.at(-1)!.value).toBeCloseTo(progress, 9);
  });

  it('flags a label that names a figure outside the glossary', () => {
    expect(unknown(['Average objective completion', 'Open (not closed)', term('openRisks')])).toEqual(['Average objective completion', 'Open (not closed)']);
  });
});
