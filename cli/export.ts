import { runMain } from './main';
import { runExportCommand } from './export-command';

await runMain(runExportCommand);
