/**
 * Text material for generated records: people, words and the deliberately awkward strings a
 * spreadsheet exporter must survive (non-ASCII, markup characters, formula-looking titles,
 * characters XML forbids, a text longer than an Excel cell holds).
 */
import type { Rng } from './random';
import type { TenantFlavour } from './types';

/** A person of the simulated company (owner, watcher, creator...). */
export interface Person {
  id: string;
  login: string;
  displayName: string;
}

export const PEOPLE: readonly Person[] = [
  { id: 'u-1001', login: 'anna.mueller', displayName: 'Anna Müller' },
  { id: 'u-1002', login: 'jose.garcia', displayName: 'José García' },
  { id: 'u-1003', login: 'li.wei', displayName: 'Li Wei (李伟)' },
  { id: 'u-1004', login: 'olivia.smith', displayName: 'Olivia Smith' },
  { id: 'u-1005', login: 'soren.nielsen', displayName: 'Søren Nielsen' },
  { id: 'u-1006', login: 'zoe.obrien', displayName: "Zoë O'Brien" },
  { id: 'u-1007', login: 'yuki.tanaka', displayName: '田中 由紀' },
  { id: 'u-1008', login: 'renee.dubois', displayName: 'Renée Dubois' },
  { id: 'u-1009', login: 'malik.haddad', displayName: 'Malik Haddad' },
  { id: 'u-1010', login: 'priya.natarajan', displayName: 'Priya Natarajan' },
  { id: 'u-1011', login: 'lukas.novak', displayName: 'Lukáš Novák' },
  { id: 'u-1012', login: 'emma.jones', displayName: 'Emma "EJ" Jones' },
];

const SUBJECTS = [
  'Supplier', 'Payment gateway', 'Data migration', 'Release train', 'Vendor contract', 'Cloud budget',
  'Test environment', 'Mobile app', 'Customer onboarding', 'Identity provider', 'Search index',
  'Warehouse in Zürich', 'Reporting pipeline', 'Security audit', 'Legacy ERP', 'API gateway',
];
const PROBLEMS = [
  'may miss the delivery date', 'could exceed the budget', 'lacks test coverage', 'depends on a single expert',
  'is blocked by licensing', 'may fail the compliance review', 'has unclear ownership', 'could leak personal data',
  'may not scale to peak load', 'is waiting on an external team',
];
const VERBS = ['Improve', 'Launch', 'Reduce', 'Automate', 'Migrate', 'Harden', 'Simplify', 'Expand', 'Modernise', 'Measure'];
const OBJECTS = [
  'checkout flow', 'onboarding journey', 'incident response', 'partner API', 'billing engine', 'data platform',
  'mobile experience', 'release pipeline', 'customer support tooling', 'pricing model', 'search relevance',
  'observability stack', 'access management', 'reporting suite', 'logistics network',
];
const QUALIFIERS = ['for EMEA', 'in Zürich & Genève', 'for 日本語 users', 'for SMB customers', 'v2', '(phase 2)', 'R&D', 'for <enterprise> tier'];
/** The demo's qualifiers: as many as QUALIFIERS, so a demo draws the same random numbers as a test tenant. */
const DEMO_QUALIFIERS = ['for EMEA', 'for the DACH region', 'for mobile users', 'for SMB customers', 'v2', '(phase 2)', 'for partners', 'for enterprise customers'];
const SENTENCES = [
  'The team raised this during PI planning.',
  'Impact is highest in the last two sprints of the increment.',
  'See the steering committee notes from last week.',
  'Costs are estimated at 25,000 € ; the range is wide.',
  'Stakeholders in Zürich and São Paulo are affected.',
  'Escalated to the RTE & product management.',
  'The vendor replied: "we will confirm next week".',
  'Dependencies: <auth-service> and the billing API.',
  'Tracked in the weekly sync 🚦 with the ART.',
  'No workaround has been agreed yet.',
  'Fallback plan: run the old system in parallel for one sprint.',
  'Owner to report progress at the system demo.',
];
const ACTIONS = [
  'Agree a fallback supplier',
  'Add two engineers from the platform team',
  'Run a spike in sprint 2',
  'Escalate to the portfolio board',
  'Split the feature into smaller stories',
  'Book an external security review',
  'Automate the regression suite',
  'Negotiate a contract extension',
];

/** Titles that look like spreadsheet formulas (CSV/Excel injection), used at fixed positions. */
export const INJECTION_TITLES: readonly string[] = [
  '=HYPERLINK("http://x","y")',
  '+SUM(A1:A9) budget check',
  '-2+3 cost overrun',
  '@cmd vendor escalation',
];

/** Titles with characters that need escaping in CSV, HTML or XML, and non-ASCII text. */
export const AWKWARD_TITLES: readonly string[] = [
  'R&D budget <Q3> "frozen", decision; pending',
  'Zürich datacentre move – 日本語 rollout 🚀',
  'Line one\nline two in a title',
  "Vendor's contract, \"final\" draft",
];

/** A description containing characters XML 1.0 forbids (U+0001, U+0008, U+001F). */
export const CONTROL_CHAR_TEXT = 'Imported from the old tool\u0001 with a stray control character.\nSecond line\u0008 and a unit separator\u001F here.';

/** One sentence-like title for a risk. */
export function riskTitle(rng: Rng): string {
  return `${rng.pick(SUBJECTS)} ${rng.pick(PROBLEMS)}`;
}

/** One title for an objective, feature or story. */
export function workTitle(rng: Rng, flavour: TenantFlavour = 'test'): string {
  const base = `${rng.pick(VERBS)} ${rng.pick(OBJECTS)}`;
  return rng.chance(0.25) ? `${base} ${rng.pick(flavour === 'demo' ? DEMO_QUALIFIERS : QUALIFIERS)}` : base;
}

/** The demo's sentences: SENTENCES without markup, as many of them (the same random draws). */
const DEMO_SENTENCES = SENTENCES.map((s) => s.replace('<auth-service>', 'the auth service'));

/** Several lines joined with \n. */
export function multiLine(rng: Rng, minLines: number, maxLines: number, flavour: TenantFlavour = 'test'): string {
  const n = rng.int(minLines, maxLines);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(rng.pick(flavour === 'demo' ? DEMO_SENTENCES : SENTENCES));
  return lines.join('\n');
}

/** Mitigation actions as a numbered multi-line list. */
export function actionList(rng: Rng): string {
  return rng
    .sample(ACTIONS, rng.int(1, 4))
    .map((a, i) => `${i + 1}. ${a}`)
    .join('\n');
}

/** A multi-line text longer than `minLength` characters (Excel cells hold at most 32,767). */
export function longText(minLength: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let i = 0; length <= minLength; i++) {
    const line = `Line ${i + 1}: ${SENTENCES[i % SENTENCES.length] ?? ''}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}
