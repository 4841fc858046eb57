/** Tenant size presets. */
import type { TenantPreset, TenantShape } from './types';

/** Benchmark size: 100,000 board items over 10 boards, 5,000 risks. */
const LARGE: Readonly<TenantShape> = {
  registers: 10,
  risksPerRegister: 500,
  portfolioThemes: 5,
  strategicThemesPerPortfolio: 10,
  groupsPerTheme: 4,
  objectivesPerGroup: 5,
  keyResultsPerObjective: 4,
  collections: 5,
  boards: 10,
  itemsPerBoard: 10_000,
  storiesPerItem: 5,
  piObjectiveGroupsPerBoard: 10,
  objectivesPerPiGroup: 10,
  linkedItemsPerObjective: 5,
  subItemsPerLinkedItem: 5,
};

/**
 * The portfolio of the scale measurements: 50 boards, 5,000 risks, 1,000 OKR objectives, 2,500 PI
 * objectives and 937,500 board-item rows (50 × (5,250 features + 3 stories on 4,500 of them)). Board
 * items are generated a page at a time when asked for: starting it costs little memory.
 */
const PORTFOLIO: Readonly<TenantShape> = {
  ...LARGE,
  boards: 50,
  itemsPerBoard: 5_250,
  storiesPerItem: 3,
  piObjectiveGroupsPerBoard: 5,
};

export const PRESETS: Readonly<Record<TenantPreset, Readonly<TenantShape>>> = {
  /** A few records of each kind; still covers every board kind and every awkward string. */
  tiny: {
    registers: 2,
    risksPerRegister: 4,
    portfolioThemes: 1,
    strategicThemesPerPortfolio: 2,
    groupsPerTheme: 1,
    objectivesPerGroup: 2,
    keyResultsPerObjective: 2,
    collections: 2,
    boards: 4,
    itemsPerBoard: 8,
    storiesPerItem: 2,
    piObjectiveGroupsPerBoard: 2,
    objectivesPerPiGroup: 3,
    linkedItemsPerObjective: 2,
    subItemsPerLinkedItem: 2,
  },
  /** A realistic small company, used by `npm run demo`. */
  demo: {
    registers: 3,
    risksPerRegister: 40,
    portfolioThemes: 2,
    strategicThemesPerPortfolio: 3,
    groupsPerTheme: 2,
    objectivesPerGroup: 3,
    keyResultsPerObjective: 3,
    collections: 2,
    boards: 4,
    itemsPerBoard: 150,
    storiesPerItem: 3,
    piObjectiveGroupsPerBoard: 3,
    objectivesPerPiGroup: 4,
    linkedItemsPerObjective: 3,
    subItemsPerLinkedItem: 3,
  },
  /** Benchmark size: 100,000 board items over 10 boards, 5,000 risks. */
  large: LARGE,

  portfolio: PORTFOLIO,
  /** The same portfolio at 2,050,000 board-item rows (50 × (11,480 features + 3 stories on 9,840)). */
  'portfolio-2m': { ...PORTFOLIO, itemsPerBoard: 11_480 },
};

const LIMITS: Partial<Record<keyof TenantShape, number>> = {
  storiesPerItem: 99,
  itemsPerBoard: 9_999_999,
  subItemsPerLinkedItem: 999,
};

/**
 * Resolves a preset name or partial counts (missing counts come from 'tiny') into a full shape.
 * Counts are truncated to non-negative integers; `collections` is at least 1 when there are boards.
 */
export function resolveShape(tenant: TenantPreset | Partial<TenantShape> | undefined): TenantShape {
  if (tenant === undefined) return { ...PRESETS.demo };
  if (typeof tenant === 'string') {
    const preset = PRESETS[tenant];
    if (!preset) throw new Error(`Unknown tenant preset '${String(tenant)}' (use ${Object.keys(PRESETS).join(', ')})`);
    return { ...preset };
  }
  const shape: TenantShape = { ...PRESETS.tiny };
  for (const key of Object.keys(shape) as (keyof TenantShape)[]) {
    const value = tenant[key];
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value < 0) throw new Error(`Tenant count ${key} must be a non-negative number`);
    shape[key] = Math.min(Math.floor(value), LIMITS[key] ?? Number.MAX_SAFE_INTEGER);
  }
  if (shape.boards > 0 && shape.collections < 1) shape.collections = 1;
  return shape;
}
