import { runMain } from './main';
import { runPreflightCommand } from './preflight-command';

await runMain(runPreflightCommand);
