import { describe, expect, it } from 'vitest';
import { checkApiGroups } from '../../../shared/preflight/api-checks';
import type { ApiProbe } from '../../../shared/preflight/ports';
import type { DatasetEntry } from '../../../shared/report/dataset/dataset';
import { DATASETS } from '../../../shared/report/tables/registry';
import { testCredentials } from '../../support/credentials';

/** Every group refuses the key: which refusals block a first e-mail is what the datasets' entries say. */
const refusing: ApiProbe = () =>
  Promise.resolve({
    groups: [
      { group: 'risk', title: 'Risk', ok: false, detail: '403', reason: 'not permitted' },
      { group: 'okr', title: 'Strategic Themes & OKRs', ok: false, detail: '403', reason: 'not permitted' },
    ],
  });

const checked = async (inUse: readonly string[], datasets?: readonly DatasetEntry[]) =>
  (await checkApiGroups(testCredentials('k'), refusing, new Set(inUse), undefined, datasets)).map((c) => [c.name, c.blocks, c.detail]);

describe('the API groups preflight requires', () => {
  it('blocks on the group of a dataset a report reads, by the group its entry names', async () => {
    expect(await checked(['risks'])).toEqual([
      ['API group Risk', true, '403: not permitted (a report reads risks)'],
      ['API group Strategic Themes & OKRs', false, '403: not permitted (no report reads okrs)'],
    ]);
  });

  it('follows a dataset added to the registry: its group blocks when a report reads it', async () => {
    const toys = { ...DATASETS[0], name: 'toys', apiGroup: 'okr' } as DatasetEntry;
    expect(await checked(['toys'], [...DATASETS, toys])).toEqual([
      ['API group Risk', false, '403: not permitted (no report reads risks)'],
      ['API group Strategic Themes & OKRs', true, '403: not permitted (a report reads toys)'],
    ]);
    expect((await checked(['risks'], [...DATASETS, toys]))[1]).toEqual(['API group Strategic Themes & OKRs', false, '403: not permitted (no report reads okrs or toys)']);
  });
});
