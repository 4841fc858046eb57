import { runMain } from './main';
import { runReportsCommand } from './reports-command';

await runMain(runReportsCommand);
