import { runMain } from './main';
import { runLinkCommand } from './link-command';

await runMain(runLinkCommand);
