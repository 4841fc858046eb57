/**
 * The trends of a report (docs/trends.md): this run's figures beside those of the runs before it.
 * While the rows stream it counts each board's features (kept in the manifest, so later runs read
 * them without opening this run's files) and reads the earlier runs' manifests; at the end it adds
 * the Trends sheet to the workbook and the PDF and hands the trends back for the e-mail.
 */
import type { Trends } from '../trends/series';
import { FeatureCompletion } from '../trends/figures';
import { startTrends } from '../trends/run-trends';
import { trendsSheetContent } from '../trends/sheet';
import { messagesFor } from '../../core/i18n/messages';
import { sheetNames } from '../sheet-names';
import type { FinishedRun, OutputFactory } from './output';

export const trendsOutput: OutputFactory = (run, context) => {
  const { definition } = run;
  const features = new FeatureCompletion();
  const history = startTrends({ storage: context.writer.storage, report: definition.name, runs: definition.trends.runs, log: context.log });
  let built: Promise<Trends> | undefined;
  // Whichever asks first (the workbook or the run's end) builds them, once.
  const trendsOf = (finished: FinishedRun) => {
    const { record } = finished;
    built ??= history.finish({
      runId: run.runId,
      generatedAt: record.generatedAt,
      selectors: record.selectors,
      changes: record.changes,
      summary: { ...record.figures, ...features.figures() },
    }, definition.timeZone, definition.locale);
    return built;
  };
  if (definition.formats.includes('xlsx') || definition.formats.includes('pdf')) {
    const messages = messagesFor(definition.locale);
    context.sheets.add(sheetNames(messages).trends, async (finished) => trendsSheetContent(await trendsOf(finished), messages));
  }
  return Promise.resolve({
    openTable: (table) => Promise.resolve(features.sinkFor(table)),
    finishTable: () => Promise.resolve({}),
    async finishRun(finished) {
      return { figures: features.figures(), result: { trends: await trendsOf(finished) } };
    },
  });
};
