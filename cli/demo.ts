import { runDemoCommand } from './demo-command';

process.exitCode = await runDemoCommand(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
