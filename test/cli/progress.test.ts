import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { terminalProgress, type Heartbeat } from '../../cli/progress';

/** A stream that records what was written, as a pipe or as a terminal. */
function output(tty: boolean): PassThrough & { isTTY?: boolean; text(): string } {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean; text(): string };
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  if (tty) stream.isTTY = true;
  stream.text = () => text;
  return stream;
}

/** A clock the test moves and a heartbeat it ticks: no timers, no sleeps. */
function manualTime() {
  let now = Date.UTC(2026, 10, 23, 7);
  const ticks: (() => void)[] = [];
  let stopped = 0;
  const heartbeat: Heartbeat = (_ms, tick) => {
    ticks.push(tick);
    return () => void (stopped += 1);
  };
  return {
    clock: () => new Date(now),
    heartbeat,
    /** Lets `seconds` pass and fires the heartbeat. */
    pass(seconds: number) {
      now += seconds * 1000;
      for (const tick of ticks) tick();
    },
    stopped: () => stopped,
  };
}

describe('terminal progress', () => {
  it('on a pipe, writes the rows so far of a streaming table every few seconds, with its dataset', () => {
    const out = output(false);
    const time = manualTime();
    const progress = terminalProgress(out, { clock: time.clock, heartbeat: time.heartbeat, intervalMs: 5_000 });
    progress.onProgress({ type: 'dataset', dataset: 'boardItems' });
    time.pass(3);
    progress.onProgress({ type: 'rows', table: 'board-items', rows: 1 });
    time.pass(2);
    progress.onProgress({ type: 'rows', table: 'board-items', rows: 12_000 });
    progress.onProgress({ type: 'rows', table: 'board-items', rows: 12_500 });
    time.pass(1);
    time.pass(4);
    progress.onProgress({ type: 'table-done', table: 'board-items', rows: 20_000 });
    time.pass(10);
    progress.onProgress({ type: 'dataset', dataset: 'risks' });
    time.pass(6);
    progress.onProgress({ type: 'table-done', table: 'risks', rows: 1 });
    progress.stop();
    expect(out.text()).toBe(
      [
        'dataset boardItems',
        '  board-items: 1 row so far (dataset boardItems)',
        '  board-items: 12,500 rows so far (dataset boardItems)',
        '  board-items: 20,000 rows',
        'dataset risks',
        '  dataset risks: no rows yet',
        '  risks: 1 row',
        '',
      ].join('\n'),
    );
    expect(time.stopped()).toBe(1);
  });

  it('on a terminal, updates one line in place and starts no heartbeat', () => {
    const out = output(true);
    const time = manualTime();
    const progress = terminalProgress(out, { clock: time.clock, heartbeat: time.heartbeat });
    progress.onProgress({ type: 'dataset', dataset: 'risks' });
    progress.onProgress({ type: 'rows', table: 'risks', rows: 1 });
    time.pass(60);
    progress.onProgress({ type: 'table-done', table: 'risks', rows: 2 });
    progress.onProgress({ type: 'file-stored', path: 'risks.csv', bytes: 2048 });
    progress.stop();
    expect(out.text()).toBe('\r\x1b[2Kdataset risks\n\r\x1b[2K  risks: 1 row…\r\x1b[2K  risks: 2 rows\n\r\x1b[2K  stored risks.csv (2.0 KiB)\n');
    expect(time.stopped()).toBe(0);
  });
});
