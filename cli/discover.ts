import { runMain } from './main';
import { runDiscoverCommand } from './discover-command';

await runMain(runDiscoverCommand);
