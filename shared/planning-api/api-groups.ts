/**
 * The planning API's groups: a key may read some and not others, so `npm run discover` and
 * preflight ask each one question. A dataset names the group that serves it (`DatasetEntry.apiGroup`).
 */
export type ApiGroupName = 'risk' | 'okr' | 'pi-objectives' | 'pi-board-items';

export const GROUP_TITLES: Readonly<Record<ApiGroupName, string>> = {
  risk: 'Risk',
  okr: 'Strategic Themes & OKRs',
  'pi-objectives': 'PI Objectives',
  'pi-board-items': 'PI Board Items',
};

/**
 * The groups a request of the client serves, told by its address and operation: the v1 address serves
 * Risk (the register and risk operations) and Strategic Themes & OKRs; the legacy address serves PI
 * Objectives and PI Board Items, whose board and collection lists both stand on. For errors that name
 * what could not be read when an address does not answer.
 */
export function groupsOfOperation(api: 'v1' | 'legacy', operation: string): readonly ApiGroupName[] {
  if (api === 'v1') return /risk|register/i.test(operation) ? ['risk'] : ['okr'];
  if (operation === 'listPiObjectiveGroups') return ['pi-objectives'];
  if (operation === 'listBoards' || operation === 'listCollections') return ['pi-objectives', 'pi-board-items'];
  return ['pi-board-items'];
}

/** "the Risk group", "the PI Objectives and PI Board Items groups". */
export function groupsPhrase(groups: readonly ApiGroupName[]): string {
  const titles = groups.map((g) => GROUP_TITLES[g]);
  if (titles.length <= 1) return `the ${titles[0] ?? 'planning API'} group`;
  return `the ${titles.slice(0, -1).join(', ')} and ${titles.at(-1)!} groups`;
}
