/**
 * Users of the simulated tenant and what each may see (contract rule 1: only visible records are
 * returned; a record that is not visible is answered as not found).
 *
 * - admin@<prefix>.example (admin): everything.
 * - alice@<prefix>.example (risk-manager): registers, boards and strategic themes at even positions.
 * - bob@<prefix>.example (release-train-engineer): registers at odd positions, boards whose
 *   position % 3 is 1 or 2, strategic themes whose position % 3 is 1.
 *
 * Derived visibility: a risk is visible with its register; a portfolio theme when one of its
 * strategic themes is; objective groups, objectives and key results with their strategic theme; a
 * collection when one of its boards is (admin: all collections, even empty ones); the register of a
 * board only when both the board and the register are visible.
 */
import { Rng } from './random';
import type { SimUser } from './types';

/** Position-based visibility predicates of one user. */
export interface VisibilityRule {
  register(index: number): boolean;
  board(index: number): boolean;
  strategicTheme(index: number): boolean;
}

const RULES: Record<SimUser['role'], VisibilityRule> = {
  admin: { register: () => true, board: () => true, strategicTheme: () => true },
  'risk-manager': {
    register: (i) => i % 2 === 0,
    board: (i) => i % 2 === 0,
    strategicTheme: (i) => i % 2 === 0,
  },
  'release-train-engineer': {
    register: (i) => i % 2 === 1,
    board: (i) => i % 3 !== 0,
    strategicTheme: (i) => i % 3 === 1,
  },
};

/** Builds the three users; API keys are derived from the seed, so they are stable per seed. */
export function buildUsers(companyPrefix: string, seed: number): SimUser[] {
  const domain = `${companyPrefix}.example`;
  const specs: { local: string; displayName: string; role: SimUser['role'] }[] = [
    { local: 'admin', displayName: 'Ada Admin', role: 'admin' },
    { local: 'alice', displayName: 'Alice Risk-Manager', role: 'risk-manager' },
    { local: 'bob', displayName: 'Bob Train-Engineer', role: 'release-train-engineer' },
  ];
  return specs.map((s, i) => ({
    email: `${s.local}@${domain}`,
    apiKey: `sim-${s.local}-${Rng.for(seed, 9001, i).hex(20)}`,
    displayName: s.displayName,
    role: s.role,
  }));
}

/** The visibility predicates of a role. */
export function visibilityRule(role: SimUser['role']): VisibilityRule {
  return RULES[role];
}
