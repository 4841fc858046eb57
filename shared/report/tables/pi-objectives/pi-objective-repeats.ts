/**
 * Each PI objective and each of its items once (issue: the API repeated records; repeated-records.ts):
 * the objective and item lists of a board with the repeats dropped and counted.
 */
import type { PiObjective, PiObjectiveGroup } from '../../../planning-api/schemas';
import type { RepeatedRecords } from '../../dataset/repeated-records';

/**
 * A board's objective groups with each objective once (its row's key is board and id) and each
 * objective's items once (objective, kind and id): the first kept, the rows of the others counted
 * as dropped. Unchanged records are handed back as they came.
 */
export function withoutRepeats(groups: readonly PiObjectiveGroup[], repeats: RepeatedRecords): PiObjectiveGroup[] {
  const objectiveIds = new Set<string>();
  return groups.map((group) => {
    if (!group.objectives) return group;
    const objectives = group.objectives.flatMap((objective) => {
      if (repeats.first(objectiveIds, objective.id, 'pi-objectives')) return [withoutRepeatedItems(objective, repeats)];
      // Its items are another table's rows.
      repeats.drop('pi-objective-items', itemRowsOf(objective));
      return [];
    });
    return objectives.length === group.objectives.length && objectives.every((o, i) => o === group.objectives![i]) ? group : { ...group, objectives };
  });
}

function withoutRepeatedItems(objective: PiObjective, repeats: RepeatedRecords): PiObjective {
  if (!objective.linkedItems) return objective;
  const seen = new Set<string>();
  let changed = false;
  const linkedItems = objective.linkedItems.flatMap((item) => {
    if (!repeats.first(seen, `item ${item.id}`, 'pi-objective-items', item.subItems?.length ?? 0)) {
      changed = true;
      return [];
    }
    if (!item.subItems) return [item];
    const subItems = item.subItems.filter((sub) => repeats.first(seen, `sub-item ${sub.id}`, 'pi-objective-items'));
    if (subItems.length === item.subItems.length) return [item];
    changed = true;
    return [{ ...item, subItems }];
  });
  return changed ? { ...objective, linkedItems } : objective;
}

/** The `pi-objective-items` rows of an objective: its linked items and their sub-items. */
function itemRowsOf(objective: PiObjective): number {
  return (objective.linkedItems ?? []).reduce((rows, item) => rows + 1 + (item.subItems?.length ?? 0), 0);
}

