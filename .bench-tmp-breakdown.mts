import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runWorker, TMP_DIR } from './bench/lib/child';
for (const rows of [300_000, 2_000_000]) {
  const dir = join(TMP_DIR, `breakdown-${rows}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await runWorker('workers/changes.ts', { kind: 'prepare', rows, dir }, { maxOldSpaceMb: 1024 });
  for (const kind of ['export', 'export+changes']) {
    const o = await runWorker<{ wallMs: number }>('workers/changes.ts', { kind, rows, dir }, { maxOldSpaceMb: 1024 });
    console.log(kind, rows, 'peak', o.peakRssMb, 'MB', Math.round((o.result?.wallMs ?? NaN) / 1000), 's');
    rmSync(join(dir, 'bench', 'dt=2026-11-23'), { recursive: true, force: true });
  }
  rmSync(dir, { recursive: true, force: true });
}
