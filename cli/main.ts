import type { CommandIo } from './export-command';

/**
 * The AWS SDK's switch for its NodeVersionSupportWarning (read by @aws-sdk/core each time a client is
 * built, see emitWarningIfUnsupportedVersion there).
 */
export const SDK_NODE_WARNING_SWITCH = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';

/**
 * On Node 20 every SDK client prints a 9-line notice that SDK releases after January 2027 will need
 * Node 22. This project pins its SDK versions exactly (package.json), so the notice is about an
 * upgrade nobody has made yet, and npm names the Node a newer SDK needs when someone does; on every
 * command it would only bury the output. The commands turn it off, unless the caller set the switch
 * (to "false", to see it). The README's Requirements say which Node versions work.
 */
export function silenceSdkNodeNotice(env: NodeJS.ProcessEnv): void {
  env[SDK_NODE_WARNING_SWITCH] ??= 'true';
}

/** What `npm run <command>` runs: the command with this process's arguments, streams and environment; its result is the exit code. */
export async function runMain(command: (argv: readonly string[], io: CommandIo) => Promise<number>): Promise<void> {
  silenceSdkNodeNotice(process.env);
  process.exitCode = await command(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  });
}
