/** Number helpers shared by the generators. */

/** Rounds to 2 decimal places (all percents the simulator serves are rounded this way). */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** part / total as a percent rounded to 2 decimals; `total` must be > 0. */
export function percent(part: number, total: number): number {
  return round2((part / total) * 100);
}

/**
 * Positions that receive one of `count` special strings: spread with a stride of up to `maxStride`
 * so that small tenants still get all of them. Returns the special's number or -1.
 */
export function specialSlot(index: number, total: number, count = 8, maxStride = 7): number {
  const stride = Math.max(1, Math.min(maxStride, Math.floor(total / count)));
  if (index % stride !== 0) return -1;
  const slot = index / stride;
  return slot < count ? slot : -1;
}

/** Freezes an object graph in place (served records must not be changed by tests by accident). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
