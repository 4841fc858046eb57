import * as z from 'zod';
import { DAY_MS } from '../../core/clock';
import { errorMessage } from '../../core/errors';
import type { Log } from '../../core/logger';
import { parseJsonBytes } from '../../core/text';
import { NOT_COMPARED } from '../../core/i18n/not-compared';
import type { Storage } from '../../storage/storage';
import { latestKey } from '../manifest/layout';
import { latestPointerSchema, manifestSchema, type Manifest } from '../manifest/manifest';
import { manifestChangesSchema, type ManifestChanges, type RunTrigger } from '../manifest/manifest-changes';

/**
 * How a run finds the run it is compared with (docs/changes.md):
 *
 * 1. `latest.json` names the newest completed run; every manifest names, in `changes.previous`, the
 *    manifest latest.json pointed at when that run started. Together they are a chain back in time.
 * 2. The chain is walked from the newest run backwards. The baseline is the first run that
 *    - is of the same kind (`scheduled` or `on-demand`) as this run: a Monday schedule keeps
 *      comparing Monday with Monday however many on-demand runs happen in between, and an
 *      on-demand run compares with the previous on-demand run, never with half a week of schedule;
 *    - started before this run; and
 *    - is at least `changes.baseline` old (`"previous"`: any age).
 * 3. At most MAX_WALK manifests are read. A missing or unreadable latest.json or manifest ends the
 *    walk: the run is exported without a comparison and the Changes sheet says why.
 */

export const MAX_WALK = 100;

/** `"previous"` or an ISO 8601 duration in weeks, days, hours or minutes, e.g. `"P7D"`, `"P1W"`, `"PT12H"`. */
const DURATION = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/;

export const baselineOptionSchema = z
  .string()
  .refine(
    (s) => s === 'previous' || (DURATION.test(s) && s !== 'P' && !s.endsWith('T')),
    'must be "previous" or a minimum age as an ISO 8601 duration such as "P7D", "P1W" or "PT12H"',
  );

/** The minimum age in milliseconds (0 for "previous"). */
export function minimumAgeMs(option: string): number {
  if (option === 'previous') return 0;
  const m = DURATION.exec(option);
  if (!m) return 0;
  const [w, d, h, min] = [m[1], m[2], m[3], m[4]].map((v) => Number(v ?? 0)) as [number, number, number, number];
  return (((w * 7 + d) * 24 + h) * 60 + min) * 60_000;
}

export interface BaselineRun {
  readonly manifest: Manifest;
  readonly manifestKey: string;
  readonly changes: ManifestChanges;
}

export type BaselineSearch =
  | { readonly found: BaselineRun; readonly previous: string | null }
  | { readonly found: undefined; readonly previous: string | null; readonly note: string };

const KIND_WORDS: Record<RunTrigger, string> = { scheduled: 'scheduled', 'on-demand': 'on-demand' };

export async function findBaseline(options: {
  readonly storage: Storage;
  readonly report: string;
  readonly trigger: RunTrigger;
  readonly option: string;
  readonly startedAt: Date;
  readonly log: Log;
}): Promise<BaselineSearch> {
  const { storage, log } = options;
  const minAge = minimumAgeMs(options.option);
  const pointerKey = latestKey(options.report);
  const what = minAge > 0 ? `${KIND_WORDS[options.trigger]} run at least ${describeAge(options.option)} old` : `${KIND_WORDS[options.trigger]} run`;

  let pointerBytes: Uint8Array | undefined;
  try {
    pointerBytes = await storage.getObject(pointerKey);
  } catch (error) {
    log.warn('could not read latest.json; exporting without a comparison', { key: pointerKey, error: errorMessage(error) });
    return { found: undefined, previous: null, note: NOT_COMPARED.unreadable.text };
  }
  if (!pointerBytes) {
    return { found: undefined, previous: null, note: NOT_COMPARED.first.text };
  }
  const pointer = latestPointerSchema.safeParse(parseJsonBytes(pointerBytes));
  if (!pointer.success) {
    log.warn('latest.json is not valid; exporting without a comparison', { key: pointerKey });
    return { found: undefined, previous: null, note: NOT_COMPARED.invalid.text };
  }

  const previous = pointer.data.manifest;
  let key: string | null = previous;
  for (let step = 0; key !== null && step < MAX_WALK; step++) {
    const run = await readRun(storage, key, log);
    if (!run) {
      return {
        found: undefined,
        previous,
        note: `The manifest of an earlier run (${key}) could not be read, so no earlier ${what} was found to compare with.`,
      };
    }
    const generatedAt = Date.parse(run.manifest.generatedAt);
    if (
      run.changes &&
      run.changes.trigger === options.trigger &&
      generatedAt < options.startedAt.getTime() &&
      options.startedAt.getTime() - generatedAt >= minAge
    ) {
      return { found: { ...run, changes: run.changes }, previous };
    }
    // Runs from before snapshots existed have no link further back.
    key = run.changes?.previous ?? null;
  }
  return { found: undefined, previous, note: `No earlier ${what} was found, so there is nothing to compare with yet.` };
}

async function readRun(
  storage: Storage,
  key: string,
  log: Log,
): Promise<{ manifest: Manifest; manifestKey: string; changes: ManifestChanges | undefined } | undefined> {
  try {
    const bytes = await storage.getObject(key);
    if (!bytes) return undefined;
    const json = parseJsonBytes(bytes);
    const manifest = manifestSchema.safeParse(json);
    if (!manifest.success) {
      log.warn('an earlier manifest is not valid; not comparing with it', { manifest: key });
      return undefined;
    }
    const raw = (json as { changes?: unknown }).changes;
    const changes = raw === undefined ? undefined : manifestChangesSchema.safeParse(raw);
    return { manifest: manifest.data, manifestKey: key, changes: changes?.success ? changes.data : undefined };
  } catch (error) {
    log.warn('could not read an earlier manifest; not comparing with it', { manifest: key, error: errorMessage(error) });
    return undefined;
  }
}

function describeAge(option: string): string {
  const ms = minimumAgeMs(option);
  const days = ms / DAY_MS;
  if (Number.isInteger(days)) return days === 1 ? '1 day' : `${days} days`;
  const hours = ms / 3_600_000;
  return Number.isInteger(hours) ? `${hours} hours` : `${ms / 60_000} minutes`;
}
