import { describe, expect, it } from 'vitest';
import type { DatasetPlan } from '../../../../shared/report/dataset/dataset';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { DATASETS, fanOutPart, fanOutUnits } from '../../../../shared/report/tables/registry';

/** A dataset's plan that read `ids` (the fan-out reads nothing else of it). */
const planOf = (noun: string, ids: readonly string[]): DatasetPlan => ({
  issues: [],
  reads: [{ noun, records: ids.map((id) => ({ id })) }],
  estimate: { requests: 0, exact: true, how: 'a test' },
  create: () => {
    throw new Error('not made in this test');
  },
});

describe('the fan-out hint of the tables registry', () => {
  const definition = parseReportDefinition({ name: 'big', datasets: { risks: {}, boardItems: { collections: ['Trains'] } } });
  const planned = [{ name: 'risks', plan: planOf('risk register', ['r1']) }, { name: 'boardItems', plan: planOf('board', ['1000', '1001', '1003']) }];

  it('is offered by one dataset, the board items', () => {
    expect(DATASETS.filter((d) => d.fanOut !== undefined).map((d) => d.name)).toEqual(['boardItems']);
  });

  it("splits that dataset's planned boards, and none when the report does not read it", () => {
    expect(fanOutUnits(planned)).toEqual(['1000', '1001', '1003']);
    expect(fanOutUnits(planned.slice(0, 1))).toEqual([]);
    expect(fanOutUnits(planned, DATASETS.filter((d) => d.fanOut === undefined))).toEqual([]);
  });

  it('gives a worker the dataset alone, reading its boards only', () => {
    expect(fanOutPart(definition, ['1001'])).toEqual({ ...definition, datasets: { boardItems: { boards: ['1001'] } } });
  });
});
