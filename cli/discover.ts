import { runDiscoverCommand } from './discover-command';

process.exitCode = await runDiscoverCommand(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
