import { describe, expect, it } from 'vitest';
import { ReportDefinitionError } from '../../../../shared/core/errors';
import { catalogOf } from '../../../../shared/definitions/catalog';
import { configuredDefinition, resolveDefinition as resolveWith, type InlinePolicy } from '../../../../shared/job/stages/resolve-definition';
import { planSlices } from '../../../../shared/job/stages/resolve';
import { definitionIssues } from '../../../support/definition-issues';

const configured = {
  weekly: {
    name: 'weekly',
    datasets: { risks: { registers: ['R1', 'R2'] }, boardItems: {} },
    formats: ['xlsx', 'csv'],
    email: { to: ['team@example.com'], subjectTemplate: '{report}' },
  },
};
/** resolveDefinition with the named report looked up in `reports`, as the jobs do. */
function resolveDefinition(
  request: Parameters<typeof resolveWith>[0],
  reports: Record<string, unknown>,
  inline?: InlinePolicy,
): ReturnType<typeof resolveWith> {
  const named = request.definition === undefined && request.report !== undefined && Object.hasOwn(reports, request.report) ? reports[request.report] : undefined;
  return resolveWith(request, named, inline);
}
const inlineOn: InlinePolicy = { enabled: true, prefix: 'adhoc-', emailDomains: ['example.com'] };

const issuesOf = definitionIssues;

describe('resolveDefinition', () => {
  it('uses a configured definition by name', () => {
    const d = resolveDefinition({ report: 'weekly' }, configured);
    expect(d.name).toBe('weekly');
    expect(d.email?.to).toEqual(['team@example.com']);
  });

  it('lets overrides narrow datasets and selectors within the configured scope, and change formats', () => {
    const d = resolveDefinition({ report: 'weekly', overrides: { formats: ['csv'], datasets: { risks: { registers: ['R2'] } } } }, configured);
    expect(d.formats).toEqual(['csv']);
    expect(d.datasets).toEqual({ risks: { registers: ['R2'] } });
    expect(d.email?.to).toEqual(['team@example.com']);
    // An unscoped dataset may be scoped by any selector.
    const items = resolveDefinition({ report: 'weekly', overrides: { datasets: { boardItems: { boards: ['b-1'] } } } }, configured);
    expect(items.datasets.boardItems?.boards).toEqual(['b-1']);
  });

  it('refuses name, prefix-like fields, recipients, subject and anything else not allow-listed', () => {
    const issues = issuesOf(() =>
      resolveDefinition(
        { report: 'weekly', overrides: { name: 'other', email: { to: ['x@evil.test'] }, title: 'x', links: {} } },
        configured,
      ),
    );
    expect(issues.map((i) => i.path).sort()).toEqual(['overrides.email', 'overrides.links', 'overrides.name', 'overrides.title']);
  });

  it('refuses selectors outside the configured scope and datasets the report does not have', () => {
    const issues = issuesOf(() =>
      resolveDefinition({ report: 'weekly', overrides: { datasets: { risks: { registers: ['R1', 'R9'] }, okrs: {} } } }, configured),
    );
    expect(issues).toEqual([
      { path: 'overrides.datasets.risks.registers', message: "outside the report's scope: R9" },
      { path: 'overrides.datasets.okrs', message: 'this report does not export this dataset' },
    ]);
    // Leaving a selector out keeps the configured one; it never widens to "all visible".
    const kept = resolveDefinition({ report: 'weekly', overrides: { datasets: { risks: {} } } }, configured);
    expect(kept.datasets.risks?.registers).toEqual(['R1', 'R2']);
  });

  it('validates formats like any definition, naming the field', () => {
    expect(() => resolveDefinition({ report: 'weekly', overrides: { formats: ['docx'] } }, configured)).toThrow(/formats\.0/);
  });

  it('does not name the configured reports when the name is unknown', () => {
    expect(() => resolveDefinition({ report: 'monthly' }, configured)).toThrow(/no report named "monthly"/);
    expect(() => resolveDefinition({ report: 'monthly' }, configured)).not.toThrow(/weekly/);
    expect(() => resolveDefinition({ report: 'toString' }, configured)).toThrow(/no report named "toString"/);
  });

  it('refuses inline definitions unless they are turned on', () => {
    expect(() => resolveDefinition({ definition: configured.weekly }, configured)).toThrow(/inline definitions are turned off/);
  });

  it('prefixes inline definitions and lets them e-mail only allow-listed domains, with the default sender and subject', () => {
    const own = resolveDefinition({ definition: { name: 'weekly', datasets: { risks: {} }, email: { to: ['a@Example.com'] } } }, configured, inlineOn);
    expect(own.name).toBe('adhoc-weekly');
    const issues = issuesOf(() =>
      resolveDefinition(
        { definition: { name: 'x', datasets: { risks: {} }, email: { to: ['a@evil.test'], cc: ['b@example.com'], subjectTemplate: 'pay now', from: 'ceo@example.com' } } },
        configured,
        inlineOn,
      ),
    );
    expect(issues.map((i) => i.path)).toEqual(['definition.email.from', 'definition.email.subjectTemplate', 'definition.email.to.0']);
  });

  it('refuses a definition together with a report name', () => {
    expect(() => resolveDefinition({ report: 'weekly', definition: configured.weekly }, configured)).toThrow(ReportDefinitionError);
  });

  it('requires one of report or definition', () => {
    expect(() => resolveDefinition({}, configured)).toThrow(/give "report"/);
  });
});

describe('configured reports', () => {
  it('looks a report up by name in the catalog, and not for inline definitions', async () => {
    const catalog = catalogOf(configured);
    expect(await configuredDefinition({ report: 'weekly' }, catalog)).toBe(configured.weekly);
    expect(await configuredDefinition({ report: 'monthly' }, catalog)).toBeUndefined();
    expect(await configuredDefinition({ definition: configured.weekly }, catalog)).toBeUndefined();
  });

  it('validates the configured definition and names the report', () => {
    expect(() => resolveDefinition({ report: 'bad' }, { bad: { name: 'Bad!', datasets: {} } })).toThrow(/report "bad" is invalid/);
  });

  it('refuses a configured name under the inline prefix when inline definitions are on', () => {
    const clash = { 'adhoc-x': { name: 'adhoc-x', datasets: { risks: {} } } };
    expect(() => resolveDefinition({ report: 'adhoc-x' }, clash, inlineOn)).toThrow(/inline prefix "adhoc-"/);
    expect(resolveDefinition({ report: 'adhoc-x' }, clash).name).toBe('adhoc-x');
  });
});

describe('inline definitions and chat channels', () => {
  it('refuses an inline definition that posts to a chat channel, whose secret belongs to a configured report', () => {
    const definition = {
      name: 'mine',
      datasets: { risks: {} },
      delivery: { channels: [{ type: 'slack', webhook: { secretId: 'chat/webhooks', key: 'rte' } }] },
    };
    let issues: readonly { path: string; message: string }[] = [];
    try {
      resolveDefinition({ definition }, configured, inlineOn);
    } catch (error) {
      issues = (error as ReportDefinitionError).issues;
    }
    expect(issues).toEqual([{ path: 'definition.delivery.channels', message: 'inline definitions may not post to chat channels; configure the report instead' }]);
    expect(resolveDefinition({ definition: { ...definition, delivery: { when: 'changed' } } }, configured, inlineOn).delivery?.when).toBe('changed');
  });
});

describe('deliveries of a report', () => {
  const portfolio = {
    name: 'portfolio',
    title: 'Portfolio',
    datasets: { risks: {}, piObjectives: { boards: ['b-1', 'b-2'] }, okrs: {} },
    email: { to: ['pmo@example.com'] },
    delivery: { when: 'changed' },
    deliveries: [
      { name: 'train-a', filter: { boards: ['b-1'], registers: ['R1'] }, email: { to: ['rte-a@example.com'] } },
      { name: 'train-b', title: 'Train B', filter: { themes: ['T-9'] }, delivery: { when: 'attention' } },
    ],
  };

  it('resolves `<report>--<delivery>` to the slice: its name, title, recipients, narrowed selectors and the report\'s `when`', async () => {
    const catalog = catalogOf({ portfolio });
    const a = resolveWith({ report: 'portfolio--train-a' }, await configuredDefinition({ report: 'portfolio--train-a' }, catalog));
    expect(a).toMatchObject({ name: 'portfolio--train-a', title: 'Portfolio — train-a', email: { to: ['rte-a@example.com'] }, delivery: { when: 'changed', channels: [] } });
    expect(a.datasets).toEqual({ risks: { registers: ['R1'] }, piObjectives: { boards: ['b-1'], additionalColumns: false }, okrs: {} });
    expect(a.deliveries).toBeUndefined();
    const b = resolveWith({ report: 'portfolio--train-b' }, await configuredDefinition({ report: 'portfolio--train-b' }, catalog));
    expect(b).toMatchObject({ title: 'Train B', delivery: { when: 'attention' } });
    expect(b.email).toBeUndefined();
    expect(b.datasets.okrs).toEqual({ strategicThemes: ['T-9'] });
    expect(await configuredDefinition({ report: 'portfolio--train-z' }, catalog)).toBeUndefined();
  });

  it('refuses deliveries with the same name, and a slice name longer than a report name may be', () => {
    const twice = { ...portfolio, deliveries: [portfolio.deliveries[0], portfolio.deliveries[0]] };
    expect(() => resolveDefinition({ report: 'portfolio' }, { portfolio: twice })).toThrow(/deliveries: give each delivery its own name/);
    const long = { ...portfolio, name: 'p'.repeat(40), deliveries: [{ name: 'x'.repeat(30), filter: {} }] };
    expect(() => resolveDefinition({ report: long.name }, { [long.name]: long })).toThrow(/deliveries\.0\.name: ".+" \(report, "--", delivery\) is longer than 64 characters/);
  });

  it('runs neither a report named like another report\'s delivery nor that delivery, naming both', async () => {
    const port = { name: 'port', datasets: { risks: {} }, deliveries: [{ name: 'b', filter: { registers: ['R1'] } }] };
    const catalog = catalogOf({ port, 'port--b': { name: 'port--b', datasets: { okrs: {} } } });
    const refusal = 'report "port--b" and delivery "b" of report "port" would both run as "port--b", writing the same folder and latest.json; rename one of them';
    await expect(configuredDefinition({ report: 'port--b' }, catalog)).rejects.toThrow(`"port--b" cannot run: ${refusal}`);
    // A slice of `port` under its scheduled run is looked up the same way.
    const slices = await planSlices({ report: 'port', source: 'schedule' }, { definitions: catalog });
    expect(slices?.map((s) => s.name)).toEqual(['port--b']);
    await expect(slices![0]!.definitions.get('port--b')).rejects.toThrow(refusal);
    // Two deliveries that make the same slice name clash as well.
    const px = { name: 'p--x', datasets: { risks: {} }, deliveries: [{ name: 'y' }] };
    const p = { name: 'p', datasets: { risks: {} }, deliveries: [{ name: 'x--y' }] };
    await expect(configuredDefinition({ report: 'p--x--y' }, catalogOf({ p, 'p--x': px }))).rejects.toThrow(
      'delivery "x--y" of report "p" and delivery "y" of report "p--x" would both run as "p--x--y"',
    );
  });
});
