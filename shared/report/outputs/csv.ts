/** One CSV file per table in the run folder, `<table>.csv`. */
import type { ObjectUpload } from '../../storage/storage';
import { openCsvSink } from '../../render/csv';
import { CSV_FORMAT } from '../manifest/formats';
import { fileEntry, NO_ENTRIES, type OutputFactory } from './output';

export const csvOutput: OutputFactory = (run, context) => {
  const { definition } = run;
  const { writer } = context;
  const uploads = new Map<string, ObjectUpload>();
  return Promise.resolve({
    async openTable(table) {
      const upload = await writer.openUpload(`${writer.runFolder}/${table.name}.csv`, {
        contentType: CSV_FORMAT.contentType,
        downloadName: `${definition.name}-${table.name}.csv`,
      });
      uploads.set(table.name, upload);
      return openCsvSink(table, upload.stream, {
        bom: definition.csv.bom, timeZone: definition.timeZone, neutraliseFormulas: definition.csv.neutraliseFormulas,
      });
    },
    async finishTable(table, rows) {
      const upload = uploads.get(table)!;
      uploads.delete(table);
      const object = await writer.stored(upload, rows);
      return { files: [fileEntry(object, writer.runFolder, CSV_FORMAT, { [table]: rows })] };
    },
    finishRun: () => Promise.resolve(NO_ENTRIES),
  });
};
