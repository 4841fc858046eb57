import { describe, expect, it } from 'vitest';
import { inBatches, ROW_BATCH } from '../../../../shared/report/dataset/dataset';
import type { TableRow } from '../../../../shared/table/table';

const rowsOf = (n: number): TableRow[] => Array.from({ length: n }, (_, i) => ({ values: [i] }));

async function collect(batches: AsyncIterable<Iterable<TableRow>>): Promise<number[][]> {
  const out: number[][] = [];
  for await (const batch of batches) out.push([...batch].map((r) => r.values[0] as number));
  return out;
}

describe('inBatches', () => {
  it('hands rows over in order, full batches then the rest', async () => {
    expect(await collect(inBatches(rowsOf(7), 3))).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    expect(await collect(inBatches(rowsOf(6), 3))).toEqual([[0, 1, 2], [3, 4, 5]]);
  });

  it('yields nothing for no rows, not an empty batch', async () => {
    expect(await collect(inBatches([], 3))).toEqual([]);
  });

  it('builds a batch only when asked, so figures gathered while rows are made follow the consumer', async () => {
    let made = 0;
    function* rows(): Iterable<TableRow> {
      for (let i = 0; i < 2 * ROW_BATCH + 1; i++) {
        made++;
        yield { values: [i] };
      }
    }
    const batches = inBatches(rows())[Symbol.asyncIterator]();
    expect(made).toBe(0);
    expect([...((await batches.next()).value as Iterable<TableRow>)]).toHaveLength(ROW_BATCH);
    expect(made).toBe(ROW_BATCH);
    await batches.return?.(undefined);
    expect(made).toBe(ROW_BATCH);
  });
});
