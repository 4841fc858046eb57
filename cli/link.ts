import { runLinkCommand } from './link-command';

process.exitCode = await runLinkCommand(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
