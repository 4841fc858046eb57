import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SDK_NODE_WARNING_SWITCH } from '../../cli/main';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/**
 * `npm run link -- --revoke …` as npm runs it (tsx), against a DynamoDB endpoint nobody listens on:
 * it builds an SDK client, fails, and exits 1. Its stderr is what a person sees.
 */
async function revokeThroughTheEntryPoint(env: Record<string, string>): Promise<string> {
  const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'cli/link.ts', '--revoke', 'AAAAAAAAAAAAAAAAAAAAAA', '--ledger-table', 'ledger'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      AWS_REGION: 'eu-central-1',
      AWS_ACCESS_KEY_ID: 'AKIDSTUB',
      AWS_SECRET_ACCESS_KEY: 'stub',
      AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:9',
      AWS_MAX_ATTEMPTS: '1',
      ...env,
    },
  });
  const failed = await run.then(
    () => undefined,
    (error: unknown) => error as { code: number; stderr: string },
  );
  expect(failed?.code).toBe(1);
  return failed!.stderr;
}

describe('the command entry points', () => {
  it("keep the AWS SDK's Node version notice out of a command's output", async () => {
    const stderr = await revokeThroughTheEntryPoint({});
    expect(stderr).toMatch(/^error: /);
    expect(stderr).not.toContain('NodeVersionSupportWarning');
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it.runIf(NODE_MAJOR < 22)('leave it to a caller who asks for the notice (the check above would see it)', async () => {
    const stderr = await revokeThroughTheEntryPoint({ [SDK_NODE_WARNING_SWITCH]: 'false' });
    expect(stderr).toContain('NodeVersionSupportWarning');
  });
});
