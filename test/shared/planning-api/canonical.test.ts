import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { canonicalCheckOf } from '../../../shared/planning-api/canonical';
import { parseRecord } from '../../../shared/planning-api/parse';
import * as schemas from '../../../shared/planning-api/schemas';
import { startSimulator } from '../../../simulator/index';
import { mulberry32 } from '../../../simulator/random';

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  in?: z.ZodType;
};
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

const recordSchemas = (Object.entries(schemas) as [string, unknown][]).filter(
  (entry): entry is [string, z.ZodType] => entry[0].endsWith('Schema') && typeof (entry[1] as { safeParse?: unknown }).safeParse === 'function',
);

/** Values put in place of a part of a record: every JSON kind, numbers as text, text as numbers. */
const PALETTE: readonly unknown[] = ['12', '-3.5', 'text', '', 12, 0, 1.5, null, undefined, true, false, {}, [], [1], ['a'], { id: 3 }, { id: 'x', title: 7 }];

/** A value `schema` outputs as it came: ids as text, numbers as numbers, some optional fields left out. */
function canonicalValue(schema: z.ZodType, random: () => number, depth = 0): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return `s${Math.floor(random() * 1000)}`;
    case 'number':
      return Math.floor(random() * 1000) / 4;
    case 'boolean':
      return random() < 0.5;
    case 'unknown':
    case 'any':
      return random() < 0.5 ? 'free' : { free: [1, 'two'] };
    case 'optional':
      return random() < 0.2 ? undefined : canonicalValue(def.innerType!, random, depth);
    case 'nullable':
      return random() < 0.2 ? null : canonicalValue(def.innerType!, random, depth);
    case 'array':
      return depth > 3 ? [] : Array.from({ length: Math.floor(random() * 3) }, () => canonicalValue(def.element!, random, depth + 1));
    case 'union':
      // The first option that is not a transform: what the check compiler calls canonical.
      return canonicalValue(def.options!.find((o) => defOf(o).type !== 'pipe')!, random, depth);
    case 'pipe':
      return Math.floor(random() * 100);
    case 'object': {
      const out: Record<string, unknown> = { unknownExtra: 'kept' };
      for (const [key, part] of Object.entries(def.shape!)) {
        const value = canonicalValue(part, random, depth + 1);
        if (value !== undefined) out[key] = value;
      }
      return out;
    }
    default:
      throw new Error(`no generator for ${def.type}`);
  }
}

/** `value` with one part (a field, an entry, or the whole) replaced by a palette value, or left out. */
function mutate(value: unknown, random: () => number): unknown {
  const pick = () => PALETTE[Math.floor(random() * PALETTE.length)];
  if (value === null || typeof value !== 'object' || random() < 0.1) return pick();
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...(value as unknown[])] : { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  if (keys.length === 0) return pick();
  const key = keys[Math.floor(random() * keys.length)]!;
  const target = copy as Record<string, unknown>;
  const next = random() < 0.5 ? mutate(target[key], random) : pick();
  if (next === undefined && !Array.isArray(copy)) delete target[key];
  else target[key] = next;
  return copy;
}

describe('the canonical check of each record schema', () => {
  it('compiles for every record schema a list answers with', () => {
    for (const name of ['boardItemSchema', 'boardStorySchema', 'riskSchema', 'okrObjectiveSchema', 'keyResultSchema', 'piObjectiveGroupSchema', 'boardSchema']) {
      expect(canonicalCheckOf(schemas[name as keyof typeof schemas] as z.ZodType), name).toBeTypeOf('function');
    }
  });

  it.each(recordSchemas)('%s: says "as it came" only where zod hands back an equal value (5,000 mutated records)', (_, schema) => {
    const check = canonicalCheckOf(schema);
    if (!check) return;
    const random = mulberry32(7);
    let taken = 0;
    let zodChanged = 0;
    for (let i = 0; i < 5_000; i++) {
      const base = canonicalValue(schema, random);
      const value = i % 4 === 0 ? base : mutate(base, random);
      const parsed = schema.safeParse(value);
      if (check(value)) {
        taken++;
        expect(parsed.success).toBe(true);
        expect(parsed.data).toStrictEqual(value);
      } else if (parsed.success) {
        zodChanged++;
      }
    }
    // Not a check that always says no: the unmutated quarter at least passes it.
    expect(taken).toBeGreaterThanOrEqual(1_250);
    expect(taken + zodChanged).toBeGreaterThan(taken);
  });

  it('takes every feature and story of the simulator as it came, and parseRecord returns the record itself', async () => {
    // The tenant's own records (contract-shaped whatever the simulator speaks): named, so the docs-vocabulary
    // project leaves this file out (test-tiers.ts), where it ran again to prove the same (8 s of CI).
    const sim = await startSimulator({ tenant: { boards: 2, itemsPerBoard: 200, storiesPerItem: 3 }, seed: 3, vocabulary: 'contract' });
    try {
      const check = canonicalCheckOf(schemas.boardItemSchema)!;
      const items = sim.tenant.boards.flatMap((board) => sim.tenant.boardItems(board.id));
      const raw = JSON.parse(JSON.stringify(items)) as unknown[];
      expect(raw.length).toBe(400);
      expect(raw.filter((item) => !check(item))).toEqual([]);
      for (const item of raw) expect(parseRecord(schemas.boardItemSchema, item, 'listBoardItems')).toBe(item);
    } finally {
      await sim.close();
    }
  });

  it('leaves a record that needs normalising to zod: a numeric id comes back as text in a new object', () => {
    const raw = { id: 42, summary: 'Feature', estimates: '8', stories: [{ id: 7 }] };
    const parsed = parseRecord(schemas.boardItemSchema, raw, 'listBoardItems');
    expect(parsed).not.toBe(raw);
    expect(parsed).toStrictEqual({ id: '42', summary: 'Feature', estimates: 8, stories: [{ id: '7' }] });
    expect(raw.id).toBe(42);
  });

  it('still names the bad field of a record the check turns away', () => {
    expect(() => parseRecord(schemas.boardItemSchema, { id: 'f-1', estimates: 'lots' }, 'listBoardItems')).toThrow(
      /listBoardItems: record "f-1" field estimates/,
    );
  });
});
