import { systemClock, type Clock } from '../shared/core/clock';
import { formatBytes } from '../shared/core/format-bytes';
import type { ProgressEvent } from '../shared/report/dataset/dataset';
import { countOf } from './words';

/** How often a pipe hears that a long table is still coming, at most. */
export const PIPED_PROGRESS_MS = 5_000;

/** Calls `tick` every `ms` until the returned function is called. */
export type Heartbeat = (ms: number, tick: () => void) => () => void;

/** The real heartbeat: unref'd, so a forgotten stop never holds the process open. */
const intervalHeartbeat: Heartbeat = (ms, tick) => {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
};

export interface ProgressOptions {
  /** When the last line was written (default: the wall clock; tests step their own). */
  readonly clock?: Clock;
  /** What wakes the piped output up (default: setInterval; tests tick by hand). */
  readonly heartbeat?: Heartbeat;
  readonly intervalMs?: number;
}

export interface TerminalProgress {
  readonly onProgress: (event: ProgressEvent) => void;
  /** Stops the heartbeat (the run is over). */
  stop(): void;
}

/**
 * Progress on a terminal: one line that updates in place on a TTY. Piped (CI logs, `| tee`), the
 * in-place line would be lost, so the datasets, finished tables and stored files are written as plain
 * lines, and while a table streams in, a line with its rows so far every few seconds: a long
 * board-items export shows it is alive without flooding a log.
 */
export function terminalProgress(out: NodeJS.WritableStream & { isTTY?: boolean }, options: ProgressOptions = {}): TerminalProgress {
  const tty = out.isTTY === true;
  const clock = options.clock ?? systemClock;
  const intervalMs = options.intervalMs ?? PIPED_PROGRESS_MS;
  let live = false;
  let lastLine = clock().getTime();
  let dataset = '';
  // What the heartbeat repeats: the table streaming in, or a dataset that has sent no rows yet;
  // nothing between a finished table and the next one.
  let current: string | undefined;
  const line = (text: string, transient: boolean) => {
    if (tty) {
      out.write(`\r\x1b[2K${text}${transient ? '' : '\n'}`);
      live = transient;
    } else if (!transient) {
      out.write(`${text}\n`);
      lastLine = clock().getTime();
    }
  };
  const tick = () => {
    if (current !== undefined && clock().getTime() - lastLine >= intervalMs) line(current, false);
  };
  const stop = tty ? () => undefined : (options.heartbeat ?? intervalHeartbeat)(intervalMs, tick);
  const onProgress = (event: ProgressEvent): void => {
    switch (event.type) {
      case 'dataset':
        if (live) out.write('\n');
        dataset = event.dataset;
        line(`dataset ${event.dataset}`, false);
        current = `  dataset ${event.dataset}: no rows yet`;
        break;
      case 'rows':
        current = `  ${event.table}: ${countOf(event.rows, 'row')} so far (dataset ${dataset})`;
        line(`  ${event.table}: ${countOf(event.rows, 'row')}…`, true);
        break;
      case 'table-done':
        current = undefined;
        line(`  ${event.table}: ${countOf(event.rows, 'row')}`, false);
        break;
      case 'file-stored':
        line(`  stored ${event.path} (${formatBytes(event.bytes)})`, false);
        break;
    }
  };
  return { onProgress, stop };
}
