import { runExportCommand } from './export-command';

process.exitCode = await runExportCommand(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
