import { formatBytes } from '../shared/core/format-bytes';
import type { ProgressEvent } from '../shared/report/dataset';

/**
 * Progress on a terminal: one line that updates in place on a TTY, plain lines otherwise (CI logs,
 * pipes), so a long board-items export shows it is alive without flooding a log.
 */
export function terminalProgress(out: NodeJS.WritableStream & { isTTY?: boolean }): (event: ProgressEvent) => void {
  const tty = out.isTTY === true;
  let live = false;
  const line = (text: string, transient: boolean) => {
    if (tty) {
      out.write(`\r\x1b[2K${text}${transient ? '' : '\n'}`);
      live = transient;
    } else if (!transient) {
      out.write(`${text}\n`);
    }
  };
  return (event) => {
    switch (event.type) {
      case 'dataset':
        if (live) out.write('\n');
        line(`dataset ${event.dataset}`, false);
        break;
      case 'rows':
        line(`  ${event.table}: ${event.rows.toLocaleString('en-US')} rows…`, true);
        break;
      case 'table-done':
        line(`  ${event.table}: ${event.rows.toLocaleString('en-US')} rows`, false);
        break;
      case 'file-stored':
        line(`  stored ${event.path} (${formatBytes(event.bytes)})`, false);
        break;
    }
  };
}
