/**
 * A week of ordinary work on a release train, as the tenant's changes between two weekly exports:
 * a few risks mitigated, one raised in level, one new risk every other week, an owner left, features
 * finished on every board, OKRs and themes moving, business value scored. Deterministic in (tenant,
 * week), so the multi-week demo and the pictures drawn from it come out the same every time.
 */
import type { BoardItemChange, OkrChange, PiObjectiveChange, RiskChange, TenantAdvance } from './evolution';
import type { Tenant } from './tenant';

const STILL_OPEN = new Set(['Open', 'In Progress']);
/** Features each board finishes in a week: a train's usual throughput, enough to see a burn-up. */
const FEATURES_DONE_PER_BOARD = 3;

/** Week `week` (1 = the first week after the first export) of work on `tenant`, dated `date`. */
export function aWeekOfWork(tenant: Tenant, week: number, date: Date): TenantAdvance {
  return {
    date,
    risks: riskWork(tenant, week, date),
    addRisks: week % 2 === 1 ? [newRisk(tenant, week)] : [],
    okrs: okrWork(tenant, week),
    themeProgress: Object.fromEntries(
      tenant.strategicThemes.map((theme, i) => [theme.key, Math.min(100, (tenant.themeProgress(theme.key)?.themeProgress ?? 0) + 3 + ((week + i) % 4))]),
    ),
    piObjectives: piObjectiveWork(tenant, week),
    boardItems: tenant.boards.flatMap((board) => featureWork(tenant, board.id)),
  };
}

function riskWork(tenant: Tenant, week: number, date: Date): RiskChange[] {
  const open = tenant.allRisks.filter((r) => STILL_OPEN.has(r.status.status));
  // Spread the week's work over the registers rather than always the first risks of the first one.
  const pick = (n: number) => open[(week * 7 + n * 13) % Math.max(1, open.length)];
  const changes: RiskChange[] = [];
  const mitigated = [pick(0), pick(1), pick(2)].filter((r) => r !== undefined);
  for (const r of new Set(mitigated)) changes.push({ id: r.id, status: 'Mitigated', resolutionDate: ddMonYyyy(date) });
  const escalated = pick(3);
  const matrix = escalated && tenant.registerMatrix(registerKeyOf(tenant, escalated.id));
  if (escalated && matrix && !mitigated.includes(escalated)) {
    changes.push({ id: escalated.id, impact: matrix.impacts.at(-1)!, probability: matrix.probabilities.at(-2)! });
  }
  const ownerLeft = pick(4);
  if (week % 2 === 0 && ownerLeft && !mitigated.includes(ownerLeft)) changes.push({ id: ownerLeft.id, responsible: null });
  return changes;
}

function registerKeyOf(tenant: Tenant, riskId: string): string {
  return tenant.registers.find((reg) => tenant.risks(reg.id).some((r) => r.id === riskId))?.id ?? tenant.registers[0]!.id;
}

function newRisk(tenant: Tenant, week: number) {
  const titles = [
    'Vendor API rate limits may throttle the nightly sync',
    'Key architect on leave during integration sprint',
    'Certification audit slot may move into the IP sprint',
    'Test environment shared with another train',
  ];
  const register = tenant.registers[week % tenant.registers.length]!;
  // A high impact and a likely probability on the register's own scale: registers name them differently
  // ("Major" on one is "Severe" on another), and a value from another scale is rated by none.
  const matrix = tenant.registerMatrix(register.id);
  const impact = matrix?.impacts.at(-2) ?? 'Major';
  const probability = matrix?.probabilities.at(-2) ?? 'Likely';
  return { register: register.key, title: titles[week % titles.length]!, impact, probability };
}

function okrWork(tenant: Tenant, week: number): OkrChange[] {
  const keyResults = tenant.strategicThemes
    .flatMap((theme) => tenant.objectiveGroupsOf(theme.key))
    .flatMap((group) => tenant.objectivesOf(group.id))
    .flatMap((objective) => tenant.keyResultsOf(objective.key));
  return keyResults
    .filter((_, i) => (i + week) % 3 === 0)
    .map((kr) => ({ keyOrId: kr.key, completionPct: Math.min(100, kr.completionPct + 5 + (week % 3) * 5) }));
}

function piObjectiveWork(tenant: Tenant, week: number): PiObjectiveChange[] {
  return tenant.boards.flatMap((board) => {
    const objectives = tenant.piObjectiveGroups(board.id).flatMap((g) => g.objectives);
    const scored = objectives[(week * 3) % Math.max(1, objectives.length)];
    if (!scored) return [];
    return [{ boardId: board.id, id: scored.id, bvActual: Math.min(10, scored.bvActual + 2) }];
  });
}

function featureWork(tenant: Tenant, boardId: string): BoardItemChange[] {
  const done = tenant.statuses(boardId).parentStatuses.find((s) => s.category === 'Done');
  if (!done) return [];
  return tenant
    .boardItems(boardId)
    .filter((item) => item.status !== done.title)
    .slice(0, FEATURES_DONE_PER_BOARD)
    .map((item) => ({ boardId, id: item.id, status: done.title }));
}

function ddMonYyyy(date: Date): string {
  const month = date.toLocaleString('en-GB', { month: 'short', timeZone: 'UTC' });
  return `${String(date.getUTCDate()).padStart(2, '0')}-${month}-${date.getUTCFullYear()}`;
}
