import { runMain } from './main';
import { runDemoCommand } from './demo-command';

await runMain(runDemoCommand);
