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
