import { errorMessage } from '../core/errors';
import { scheduleStateOf } from '../ops/report-list';
import { cannotTell, notOk, ok, type Check } from './check';
import type { KnownReport, ScheduleGroupReader, StoredReports } from './ports';

const area = 'reports' as const;

/** Whether a report e-mails anyone: its own recipients or a delivery's. */
export function emailsSomeone(report: KnownReport): boolean {
  return report.definition.email !== undefined || (report.definition.deliveries ?? []).some((d) => d.email !== undefined);
}

/** The stored reports of the definitions bucket: readable, each a valid report. Undefined reports when the bucket cannot be read. */
export async function checkStoredReports(bucket: string, store: StoredReports): Promise<{ check: Check; reports?: KnownReport[] }> {
  const fields = { area, name: `definitions bucket ${bucket}`, blocks: true };
  let names: string[];
  try {
    names = await store.names();
  } catch (error) {
    return { check: cannotTell({ ...fields, detail: errorMessage(error) }) };
  }
  const reports: KnownReport[] = [];
  const invalid: string[] = [];
  for (const name of names) {
    try {
      const stored = await store.read(name, { fresh: true });
      if (stored) reports.push({ definition: stored.parsed, schedule: stored.schedule });
    } catch (error) {
      invalid.push(`${name} (${errorMessage(error).split('\n').slice(1).join('; ').trim() || errorMessage(error)})`);
    }
  }
  if (invalid.length > 0) {
    return {
      check: notOk({ ...fields, blocks: false, detail: `not valid reports, they never run: ${invalid.join(', ')}`, fix: `npm run reports -- validate <file>, then npm run reports -- push <file> --bucket ${bucket}` }),
      reports,
    };
  }
  return { check: ok({ ...fields, detail: names.length === 0 ? 'no stored reports' : `${names.length === 1 ? '1 stored report' : `${names.length} stored reports`}: ${names.join(', ')}` }), reports };
}

/** At least one report e-mails someone: without one there is no first e-mail to wait for. */
export function checkMailingReport(reports: readonly KnownReport[], where: string, bucket: string | undefined): Check {
  const fields = { area, name: 'a report that e-mails', blocks: true };
  const mailing = reports.filter(emailsSomeone).map((r) => r.definition.name);
  if (mailing.length > 0) return ok({ ...fields, detail: `${mailing.join(', ')} (${where})` });
  const push = bucket === undefined ? 'add "email": {"to": [...]} to a report in cdk.json and deploy' : `add "email": {"to": [...]} to a report and push it: npm run reports -- push report.json --bucket ${bucket}`;
  return notOk({ ...fields, detail: reports.length === 0 ? `no reports (${where})` : `none of ${reports.map((r) => r.definition.name).join(', ')} e-mails anyone (${where})`, fix: push });
}

/**
 * The stack's schedule group and a schedule for each stored report that has one. A missing schedule
 * does not block a first e-mail (that comes from a run on demand), but the report would not run by itself.
 */
export async function checkSchedules(groupName: string, reader: ScheduleGroupReader, reports: readonly KnownReport[], bucket: string): Promise<Check[]> {
  const fields = { area, name: `schedule group ${groupName}`, blocks: false };
  try {
    if (!(await reader.groupExists())) return [notOk({ ...fields, detail: 'does not exist: the deployed stack creates it', fix: 'deploy the stack again' })];
  } catch (error) {
    return [cannotTell({ ...fields, detail: errorMessage(error) })];
  }
  const scheduled = reports.filter((r) => r.schedule !== null);
  const group = ok({ ...fields, detail: 'exists' });
  const name = 'schedules';
  if (scheduled.length === 0) return [group, ok({ area, name, blocks: false, detail: 'no stored report has a schedule: each runs on demand (docs/deploy.md says how to give one a schedule)' })];
  const wrong: string[] = [];
  try {
    for (const report of scheduled) {
      const state = await scheduleStateOf(report.definition.name, report.schedule!, reader);
      if (state !== 'present') wrong.push(`${report.definition.name} (${state})`);
    }
  } catch (error) {
    return [group, cannotTell({ area, name, blocks: false, detail: errorMessage(error) })];
  }
  if (wrong.length === 0) return [group, ok({ area, name, blocks: false, detail: scheduled.length === 1 ? 'the scheduled report has its schedule' : `one for each of the ${scheduled.length} scheduled reports` })];
  return [
    group,
    notOk({ area, name, blocks: false, detail: `not as stored: ${wrong.join(', ')}`, fix: `push each again (npm run reports -- push <file> --bucket ${bucket}): the upload re-syncs its schedule within a minute` }),
  ];
}
