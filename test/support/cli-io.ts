import { PassThrough } from 'node:stream';
import type { CommandIo } from '../../cli/export-command';

/** A command's io whose output the test reads back: stdout, stderr, and both as printed, in order. */
export interface CapturedIo extends CommandIo {
  out(): string;
  err(): string;
  /** stdout and stderr interleaved as the command wrote them. */
  printed(): string;
}

/** The io a CLI command gets in tests: in-memory streams instead of the terminal, an explicit env and cwd. */
export function captureIo(cwd: string, env: Record<string, string> = {}): CapturedIo {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  let printed = '';
  stdout.on('data', (c: Buffer) => {
    out += c.toString();
    printed += c.toString();
  });
  stderr.on('data', (c: Buffer) => {
    err += c.toString();
    printed += c.toString();
  });
  return { stdout, stderr, env, cwd, out: () => out, err: () => err, printed: () => printed };
}
