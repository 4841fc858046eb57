import type { SnapshotHeader } from './snapshot';

/**
 * The selection a table was exported with, from its dataset's resolved selectors (the same values
 * the manifest records): the units rows come from (risk registers, strategic themes, boards), each
 * by the id its rows carry in the table's scope column, and the scalar settings that change values
 * without changing rows (PI objectives' completionType). A unit added to or removed from the
 * selection is reported once as a scope change, not as each of its rows added or removed.
 */
export function scopeOf(
  dataset: string,
  resolved: Record<string, unknown>,
  settingNames: readonly string[] = [],
): SnapshotHeader['scope'] {
  const units: { id: string; label: string }[] = [];
  const settings: Record<string, string | number | null> = {};
  for (const [name, value] of Object.entries(resolved)) {
    if (Array.isArray(value)) {
      for (const unit of value as { id?: unknown; key?: unknown; title?: unknown }[]) {
        const id = typeof unit.key === 'string' && unit.key !== '' ? unit.key : typeof unit.id === 'string' ? unit.id : undefined;
        if (id === undefined) continue;
        const title = typeof unit.title === 'string' && unit.title !== '' ? unit.title : undefined;
        units.push({ id, label: title ? `${title} (${id})` : id });
      }
    } else if (settingNames.includes(name) && (typeof value === 'string' || typeof value === 'number' || value === null)) {
      settings[`${dataset}.${name}`] = value;
    }
  }
  return { units, settings };
}
