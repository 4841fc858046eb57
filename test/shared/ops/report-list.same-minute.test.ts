import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatList } from '../../../cli/reports-command';
import { listReports } from '../../../shared/ops/report-list';
import { LocalDirectoryStorage } from '../../../shared/storage/local-storage';
import { storedReports } from '../../support/door-settings';

/** The run list says how many reports share each one's next minute: where a fleet crowds. */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'report-list-minute-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const report = (name: string, cron: string | null) => ({
  definition: { name, title: name, timeZone: 'Europe/Berlin', datasets: { risks: {} } },
  schedule: cron === null ? null : { cron, timeZone: 'Europe/Berlin' },
});

describe('the run list\'s crowded minutes', () => {
  it('counts the reports whose next run is the same minute, and says so when more than one', async () => {
    const store = storedReports(new LocalDirectoryStorage(dir));
    for (const name of ['a', 'b', 'c']) await store.put(report(`monday-${name}`, 'cron(0 7 ? * MON *)'));
    await store.put(report('monday-late', 'cron(5 7 ? * MON *)'));
    await store.put(report('on-demand', null));
    const entries = await listReports({ store, now: new Date('2026-11-26T12:00:00Z') });
    expect(Object.fromEntries(entries.map((e) => [e.name, e.sameMinute]))).toEqual({
      'monday-a': 3,
      'monday-b': 3,
      'monday-c': 3,
      'monday-late': 1,
      'on-demand': undefined,
    });
    const text = formatList(entries);
    expect(text).toContain('  next run  2026-11-30 07:00 CET (3 reports at this minute)\n');
    expect(text).toContain('  next run  2026-11-30 07:05 CET\n');
  });
});
