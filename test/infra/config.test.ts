// @tier slow
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configContext, InfraConfigError, loadInfraConfig, REPO_ROOT } from '../../infra/config';
import { cdkJsonContext } from './support';

const minimal = { name: 'weekly', datasets: { risks: {} } };

function problems(context: unknown): string {
  try {
    loadInfraConfig(context);
  } catch (error) {
    expect(error).toBeInstanceOf(InfraConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be rejected');
}

describe('loadInfraConfig', () => {
  it('accepts the example configuration in cdk.json, which schedules nothing: a fresh deploy holds only the placeholder secret', () => {
    const config = loadInfraConfig(cdkJsonContext().reportExporter);
    expect(config.reports.map((r) => r.definition.name)).toEqual(['acme-weekly']);
    expect(config.reports.map((r) => r.schedule)).toEqual([null]);
  });

  it('applies the defaults', () => {
    expect(loadInfraConfig(undefined)).toEqual({
      reports: [],
      retentionDays: 90,
      exportMemoryMb: 1024,
      exportTimeoutMinutes: 15,
      planningApiRatePerSecond: 20,
      fanOutWorkers: 3,
      scheduledConcurrency: 5,
      inlineDefinitions: { enabled: false, prefix: 'adhoc-', emailDomains: [] },
    });
    expect(loadInfraConfig({ reports: [{ definition: minimal }] }).reports[0]?.schedule).toBeNull();
  });

  it('keeps inline definitions off by default, and refuses a configured name under the inline prefix when on', () => {
    const inlineDefinitions = { enabled: true, prefix: 'adhoc-', emailDomains: ['example.com'] };
    expect(loadInfraConfig({ inlineDefinitions }).inlineDefinitions).toEqual(inlineDefinitions);
    expect(problems({ inlineDefinitions, reports: [{ definition: { ...minimal, name: 'adhoc-weekly' } }] })).toMatch(
      /report "adhoc-weekly" starts with the inline prefix "adhoc-"/,
    );
    expect(problems({ inlineDefinitions: { enabled: true, emailDomains: ['Not A Domain'] } })).toMatch(/emailDomains/);
  });

  it('reserves no concurrency unless asked, and then gives the fan-out at most half of the reserved slots, the rest to the exports', () => {
    expect(loadInfraConfig({}).exportReservedConcurrency).toBeUndefined();
    expect(loadInfraConfig({ fanOutWorkers: 10 }).fanOutWorkers).toBe(10);
    expect(loadInfraConfig({ exportReservedConcurrency: 8 }).fanOutWorkers).toBe(3);
    expect(loadInfraConfig({ exportReservedConcurrency: 5 }).fanOutWorkers).toBe(2);
    expect(loadInfraConfig({ exportReservedConcurrency: 8, fanOutWorkers: 1 }).fanOutWorkers).toBe(1);
    expect(problems({ exportReservedConcurrency: 5, fanOutWorkers: 3 })).toMatch(
      /reportExporter\.fanOutWorkers: 3 workers would take more than half of the 5 slots of reportExporter\.exportReservedConcurrency, leaving the scheduled exports 2; use at most 2, or raise exportReservedConcurrency to 6/,
    );
    // One slot cannot be shared: a fan-out needs a worker, and the exports a slot of their own.
    expect(problems({ exportReservedConcurrency: 1 })).toMatch(/reportExporter\.exportReservedConcurrency: /);
    expect(problems({ fanOutWorkers: 0 })).toMatch(/reportExporter\.fanOutWorkers: /);
  });

  it('runs 5 scheduled runs at once by default, never more than a reservation, within what SQS allows', () => {
    expect(loadInfraConfig({ scheduledConcurrency: 100 }).scheduledConcurrency).toBe(100);
    // A reservation below the default takes the reservation.
    expect(loadInfraConfig({ exportReservedConcurrency: 3 }).scheduledConcurrency).toBe(3);
    expect(problems({ exportReservedConcurrency: 4, scheduledConcurrency: 6 })).toMatch(
      /reportExporter\.scheduledConcurrency: 6 is more than exportReservedConcurrency \(4\); the queue's poller would be throttled/,
    );
    expect(problems({ scheduledConcurrency: 1 })).toMatch(/reportExporter\.scheduledConcurrency: /);
    expect(problems({ scheduledConcurrency: 1001 })).toMatch(/reportExporter\.scheduledConcurrency: /);
  });

  it('accepts a JSON string as given with cdk -c', () => {
    expect(loadInfraConfig(JSON.stringify({ retentionDays: 7 })).retentionDays).toBe(7);
  });

  it('reads definitionFile relative to the repository root and validates it', () => {
    // The demo report e-mails its readers, so a stack deploying it names its SES identity and sender.
    const mail = { sesIdentityArn: 'arn:aws:ses:eu-west-1:123456789012:identity/example.com', mailFrom: 'reports@example.com' };
    const config = loadInfraConfig({ ...mail, reports: [{ definitionFile: 'examples/demo-report.json', schedule: null }] }, REPO_ROOT);
    expect(config.reports[0]?.definition.name).toBe('demo-weekly');
    expect(problems({ reports: [{ definitionFile: 'examples/missing.json' }] })).toMatch(
      /reportExporter\.reports\[0\]\.definitionFile: cannot read "examples\/missing\.json" \(ENOENT\)/,
    );
  });

  it('names the context key of every problem', () => {
    const message = problems({
      reports: [{ definition: minimal, schedule: { cron: 'cron(0 7 * * MON *)', timeZone: 'Mars/Olympus' } }],
      retentionDays: 0,
      exportTimeoutMinutes: 20,
      colour: 'blue',
    });
    expect(message).toContain('cdk.json context "reportExporter" is invalid');
    expect(message).toMatch(/reportExporter\.reports\[0\]\.schedule\.cron: day-of-month .* must be "\?"/);
    expect(message).toMatch(/reportExporter\.reports\[0\]\.schedule\.timeZone: must be an IANA time zone/);
    expect(message).toMatch(/reportExporter\.retentionDays: /);
    expect(message).toMatch(/reportExporter\.exportTimeoutMinutes: /);
    expect(message).toMatch(/reportExporter: unknown key\(s\) "colour"/);
  });

  it('rejects a cron expression that is not six fields in cron(...)', () => {
    expect(problems({ reports: [{ definition: minimal, schedule: { cron: '0 7 * * 1', timeZone: 'UTC' } }] })).toMatch(
      /schedule\.cron: must be a six-field Scheduler cron expression/,
    );
  });

  it('validates definitions with the report definition schema, naming the field', () => {
    const message = problems({ reports: [{ definition: { name: 'Bad Name', datasets: { boardz: {} } } }] });
    expect(message).toMatch(/reportExporter\.reports\[0\]\.definition\.name: must be a slug/);
    expect(message).toMatch(/reportExporter\.reports\[0\]\.definition\.datasets: unknown field\(s\) "boardz"/);
  });

  it('requires exactly one of definition and definitionFile', () => {
    expect(problems({ reports: [{ schedule: null }] })).toMatch(/reports\[0\]: give exactly one of "definition"/);
    expect(problems({ reports: [{ definition: minimal, definitionFile: 'x.json' }] })).toMatch(/give exactly one of/);
  });

  it('rejects duplicate report names', () => {
    expect(problems({ reports: [{ definition: minimal }, { definition: minimal }] })).toMatch(/a report named "weekly" is configured twice/);
  });

  it('rejects a report named like another report\'s delivery, naming both', () => {
    const sliced = { ...minimal, deliveries: [{ name: 'b' }] };
    expect(problems({ reports: [{ definition: sliced }, { definition: { ...minimal, name: 'weekly--b' } }] })).toContain(
      'reportExporter.reports[1].definition.name: delivery "b" of report "weekly" (reportExporter.reports[0].definition) and report "weekly--b" ' +
        '(reportExporter.reports[1].definition) would both run as "weekly--b", writing the same folder and latest.json; rename one of them',
    );
  });

  it('requires an SES identity and a sender for reports with recipients', () => {
    const withEmail = { ...minimal, email: { to: ['team@example.com'] } };
    const message = problems({ reports: [{ definition: withEmail }] });
    expect(message).toMatch(/has e-mail recipients, so reportExporter\.sesIdentityArn must be set/);
    expect(message).toMatch(/has e-mail recipients but no sender/);
    expect(problems({ mailFrom: 'reports@example.com' })).toMatch(/reportExporter\.mailFrom: needs reportExporter\.sesIdentityArn/);
    expect(
      loadInfraConfig({
        reports: [{ definition: withEmail }],
        mailFrom: 'reports@example.com',
        sesIdentityArn: 'arn:aws:ses:eu-west-1:123456789012:identity/example.com',
      }).mailFrom,
    ).toBe('reports@example.com');
    expect(problems({ sesIdentityArn: 'arn:aws:s3:::bucket' })).toMatch(/reportExporter\.sesIdentityArn: must be an SES identity ARN/);
  });

  it('accepts as many reports as a portfolio has: they are stored in a bucket, not the environment', () => {
    const long = (i: number) => ({ ...minimal, name: `report-${i}`, title: 'x'.repeat(190) });
    const reports = Array.from({ length: 500 }, (_, i) => ({ definition: long(i) }));
    expect(loadInfraConfig({ reports }).reports).toHaveLength(500);
  });

  it('keeps the definitions as written (defaults are applied by the Lambdas)', () => {
    const config = loadInfraConfig({ reports: [{ definition: minimal }] });
    expect(config.reports.map((r) => r.definition)).toEqual([minimal]);
  });
});

describe('the configuration given on the command line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'infra-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // A deployment's file as people write it: pretty-printed over many lines.
  const prod = { retentionDays: 30, reports: [{ definition: minimal, schedule: null }] };
  const prodText = `${JSON.stringify(prod, null, 2)}\n`;
  writeFileSync(join(dir, 'prod-exporter.json'), prodText);
  /** The context as the app reads it: cdk.json's object, overridden by what -c gives. */
  const contextOf = (given: Record<string, string>) => (key: string) => given[key] ?? cdkJsonContext()[key];
  /** What the app says for what -c gives: reading the file may fail before the configuration is checked. */
  const given = (values: Record<string, string>): string => {
    try {
      return problems(configContext(contextOf(values)));
    } catch (error) {
      expect(error).toBeInstanceOf(InfraConfigError);
      return (error as Error).message;
    }
  };

  it('reads a multi-line file named by -c reportExporterFile, instead of cdk.json\'s configuration', () => {
    const config = loadInfraConfig(configContext(contextOf({ reportExporterFile: join(dir, 'prod-exporter.json') })));
    expect(config.retentionDays).toBe(30);
    expect(config.reports.map((r) => r.definition.name)).toEqual(['weekly']);
  });

  it('accepts a multi-line JSON string given whole, and cdk.json\'s object when nothing is given', () => {
    expect(loadInfraConfig(configContext(contextOf({ reportExporter: prodText }))).retentionDays).toBe(30);
    expect(loadInfraConfig(configContext(contextOf({}))).reports.map((r) => r.definition.name)).toEqual(['acme-weekly']);
  });

  it('names the file option when the cdk CLI passed only the first line of a multi-line value', () => {
    // What `-c reportExporter="$(cat prod-exporter.json)"` reaches the app as: the CLI keeps the first line.
    const firstLine = prodText.split('\n')[0]!;
    expect(firstLine).toBe('{');
    expect(given({ reportExporter: firstLine })).toContain(
      'the cdk CLI passes only the first line of a -c value. Give the file instead: -c reportExporterFile=prod-exporter.json',
    );
  });

  it('places a syntax error of the file by line and column, and refuses a file and a -c string at once', () => {
    writeFileSync(join(dir, 'broken.json'), '{\n  "retentionDays": 30,\n  "reports": [,]\n}\n');
    expect(given({ reportExporterFile: join(dir, 'broken.json') })).toContain(
      `reportExporterFile "${join(dir, 'broken.json')}": not valid JSON: unexpected "," at line 3, column 15`,
    );
    expect(given({ reportExporterFile: 'missing.json' })).toContain('reportExporterFile: cannot read "missing.json" (ENOENT)');
    expect(given({ reportExporterFile: join(dir, 'prod-exporter.json'), reportExporter: '{}' })).toContain(
      'give one of -c reportExporter=… and -c reportExporterFile=…, not both',
    );
  });
});
