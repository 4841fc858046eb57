/** `changes.csv` in the run folder, with every CSV run: the same rows as the workbook's Changes sheet. */
import { CHANGES_CSV, writeChangesCsv } from '../changes/outputs';
import { CSV_FORMAT } from '../manifest/formats';
import { fileEntry, NO_ENTRIES, type OutputFactory } from './output';

export const changesOutput: OutputFactory = (run, context) => {
  const { definition } = run;
  const { writer } = context;
  return Promise.resolve({
    openTable: () => Promise.resolve(undefined),
    finishTable: () => Promise.resolve(NO_ENTRIES),
    async finishRun(finished) {
      const upload = await writer.openUpload(`${writer.runFolder}/${CHANGES_CSV}`, {
        contentType: CSV_FORMAT.contentType,
        downloadName: `${definition.name}-${CHANGES_CSV}`,
      });
      const count = await writeChangesCsv(finished.changes, upload.stream, { bom: definition.csv.bom, timeZone: definition.timeZone });
      const object = await writer.stored(upload, count);
      return { files: [fileEntry(object, writer.runFolder, CSV_FORMAT, { changes: count })] };
    },
  });
};
