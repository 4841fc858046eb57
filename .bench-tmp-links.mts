import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runWorker, TMP_DIR } from './bench/lib/child';
for (const rows of [300_000, 2_000_000]) {
  const dir = join(TMP_DIR, `links-${rows}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const links of ['0', '65530']) {
    const o = await runWorker<{ wallMs: number }>('workers/changes.ts', { kind: 'export', rows, dir }, { maxOldSpaceMb: 1024, env: { BENCH_LINKS: links } });
    console.log('export links', links, rows, 'peak', o.peakRssMb, 'MB', Math.round((o.result?.wallMs ?? NaN) / 1000), 's', o.ok ? '' : o.stderrTail);
  }
  rmSync(dir, { recursive: true, force: true });
}
