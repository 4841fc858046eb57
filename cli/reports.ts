import { runReportsCommand } from './reports-command';

process.exitCode = await runReportsCommand(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
