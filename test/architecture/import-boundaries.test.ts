import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- the lint config is plain JavaScript without type declarations
import { exceljsInternalsBoundary, importBoundaries } from '../../eslint.config.js';

/** Lints one probe file as if it stood at `path`, with only the project's import rules (or the rules given). */
async function lintProbe(path: string, source: string, rules: readonly object[] = importBoundaries as object[]): Promise<string[]> {
  const eslint = new ESLint({
    cwd: process.cwd(),
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...(rules as [])],
  });
  const [result] = await eslint.lintText(source, { filePath: path });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

describe('the linter enforces the layers', () => {
  it('refuses exceljs outside the exceljs-internals modules, also in the rest of the xlsx renderer', async () => {
    const messages = await lintProbe('shared/report/probe.ts', "import ExcelJS from 'exceljs';\nexport const x = ExcelJS;\n");
    expect(messages).toEqual([expect.stringContaining('Only the exceljs-internals modules (shared/render/xlsx/exceljs-internals/) import exceljs')]);
    expect(await lintProbe('shared/render/csv-probe.ts', "import ExcelJS from 'exceljs';\nexport const x = ExcelJS;\n")).toHaveLength(1);
    expect(await lintProbe('shared/render/xlsx/probe.ts', "import ExcelJS from 'exceljs';\nexport const x = ExcelJS;\n")).toHaveLength(1);
  });

  it('lets the exceljs-internals modules import exceljs', async () => {
    expect(await lintProbe('shared/render/xlsx/exceljs-internals/probe.ts', "import ExcelJS from 'exceljs';\nexport const x = ExcelJS;\n")).toEqual([]);
  });

  it('refuses pdfkit outside the PDF renderer, and exceljs inside it', async () => {
    const pdfkit = "import PDFDocument from 'pdfkit';\nexport const x = PDFDocument;\n";
    for (const path of ['shared/report/outputs/probe.ts', 'shared/render/probe.ts', 'shared/render/xlsx/probe.ts', 'shared/render/xlsx/exceljs-internals/probe.ts', 'lambdas/probe.ts', 'cli/probe.ts']) {
      expect(await lintProbe(path, pdfkit)).toEqual([expect.stringContaining('Only the PDF renderer (shared/render/pdf/) imports pdfkit')]);
      expect(await lintProbe(path, "import { create } from 'fontkit';\nexport const x = create;\n")).toHaveLength(1);
    }
    expect(await lintProbe('shared/render/pdf/probe.ts', pdfkit)).toEqual([]);
    expect(await lintProbe('shared/render/pdf/probe.ts', "import ExcelJS from 'exceljs';\nexport const x = ExcelJS;\n")).toHaveLength(1);
  });

  it('refuses a reach into exceljs internals (an underscore member) elsewhere in the renderer', async () => {
    const reach = 'export const sheets = (workbook: unknown) => (workbook as { _worksheets: unknown[] })._worksheets;\n';
    const messages = await lintProbe('shared/render/xlsx/probe.ts', reach, [exceljsInternalsBoundary]);
    expect(messages).toEqual([
      expect.stringContaining('belongs in shared/render/xlsx/exceljs-internals/'),
      expect.stringContaining('belongs in shared/render/xlsx/exceljs-internals/'),
    ]);
    expect(await lintProbe('shared/render/xlsx/exceljs-internals/probe.ts', reach, [exceljsInternalsBoundary])).toEqual([]);
  });

  it('refuses the AWS SDK outside the adapters, also in handlers', async () => {
    const sdk = "import { S3Client } from '@aws-sdk/client-s3';\nexport const c = S3Client;\n";
    expect(await lintProbe('shared/report/probe.ts', sdk)).toEqual([expect.stringContaining('Only the AWS adapters import @aws-sdk/*')]);
    expect(await lintProbe('lambdas/export-api/probe.ts', sdk)).toHaveLength(1);
    expect(await lintProbe('shared/storage/s3-storage.ts', sdk)).toEqual([]);
  });

  it('refuses an import of an upper layer or a sibling', async () => {
    const upward = await lintProbe('shared/render/probe.ts', "import { runExport } from '../report/run/run-export';\nexport const r = runExport;\n");
    expect(upward).toEqual([expect.stringContaining('shared/render may import only core, table')]);
    const sibling = await lintProbe('shared/storage/probe.ts', "import { createLinkToken } from '../links/link-token';\nexport const r = createLinkToken;\n");
    expect(sibling).toEqual([expect.stringContaining('shared/storage may import only core')]);
    const fromTests = await lintProbe('shared/core/probe.ts', "import { startSimulator } from '../../simulator/index';\nexport const r = startSimulator;\n");
    expect(fromTests).toEqual([expect.stringContaining('never imports a door, the simulator, tests or tools')]);
  });

  it('allows an import of a lower layer', async () => {
    expect(await lintProbe('shared/report/tables/probe.ts', "import { errorMessage } from '../../core/errors';\nexport const r = errorMessage;\n")).toEqual([]);
    expect(await lintProbe('shared/job/probe.ts', "import { runExport } from '../report/run/run-export';\nexport const r = runExport;\n")).toEqual([]);
  });

  it('keeps the job below the doors built on it: messages never import the job, the job never the fan-out', async () => {
    const messages = await lintProbe('shared/messages/probe.ts', "import { runJob } from '../job/run-job';\nexport const r = runJob;\n");
    expect(messages).toEqual([expect.stringContaining('shared/messages may import only')]);
    const job = await lintProbe('shared/job/probe.ts', "import { runFanOutStep } from '../fan-out/steps';\nexport const r = runFanOutStep;\n");
    expect(job).toEqual([expect.stringContaining('shared/job may import only')]);
  });

  it('keeps shared/report in its three layers: the model and the figures never import the run, the model never the figures', async () => {
    const tableToDefinition = await lintProbe('shared/report/tables/probe.ts', "import type { ReportDefinition } from '../definition/definition';\nexport type D = ReportDefinition;\n");
    expect(tableToDefinition).toEqual([expect.stringContaining("shared/report's model layer")]);
    const datasetToChanges = await lintProbe('shared/report/dataset/probe.ts', "import { CHANGES_TABLE } from '../changes/model';\nexport const c = CHANGES_TABLE;\n");
    expect(datasetToChanges).toEqual([expect.stringContaining("shared/report's model layer")]);
    const changesToRun = await lintProbe('shared/report/changes/probe.ts', "import { newRunId } from '../run/run-id';\nexport const r = newRunId;\n");
    expect(changesToRun).toEqual([expect.stringContaining("shared/report's figures layer")]);
    expect(await lintProbe('shared/report/run/probe.ts', "import { CHANGES_TABLE } from '../changes/model';\nexport const c = CHANGES_TABLE;\n")).toEqual([]);
    expect(await lintProbe('shared/report/changes/probe.ts', "import { latestKey } from '../manifest/layout';\nexport const k = latestKey;\n")).toEqual([]);
  });

  it('keeps the simulator free of the exporter', async () => {
    const messages = await lintProbe('simulator/probe.ts', "import { x } from '../shared/core/errors';\nexport const r = x;\n");
    expect(messages).toEqual([expect.stringContaining('The simulator stands alone')]);
  });
});
