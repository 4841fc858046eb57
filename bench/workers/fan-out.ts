/**
 * One part of the fan-out benchmark in its own process (bench/sections/fan-out.ts): the single path
 * (`runJob`), one fan-out worker (`fetchBoardAnswers`) or the assembler (`assembleFanOut`),
 * all against one local directory and ledger, as the export function's steps run in Lambda.
 */
import { join } from 'node:path';
import { reportResult, workerInput } from '../lib/worker';
import { silentLog } from '../../shared/core/logger';
import { fixedClock } from '../../shared/core/clock';
import { runContextOf } from '../../shared/report/run/context';
import { runJob, type JobContext } from '../../shared/job/run-job';
import { assembleFanOut, fetchBoardAnswers, type FanOutPlan } from '../../shared/fan-out/steps';
import { JobStatusStore } from '../../shared/job/status/job-status';
import { type ExportJobRequest } from '../../shared/job/request';
import { catalogOf } from '../../shared/definitions/catalog';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import type { Credentials } from '../../shared/planning-api/credentials';
import { LocalDirectoryStorage } from '../../shared/storage/local-storage';

interface Input {
  mode: 'single' | 'work' | 'assemble';
  dir: string;
  credentials: Credentials;
  definition: Record<string, unknown> & { name: string };
  request: ExportJobRequest;
  plan?: Pick<FanOutPlan, 'request'>;
  boards?: string[];
}

const input = workerInput<Input>();
const ledger = new LocalLedger(join(input.dir, '.ledger'));
const deps: JobContext = {
  ...runContextOf({
    clock: fixedClock(new Date('2026-11-23T06:00:30Z')),
    storage: new LocalDirectoryStorage(input.dir),
    ledger,
    log: silentLog,
    planning: { credentials: { getCredentials: () => Promise.resolve(input.credentials) } },
  }),
  definitions: catalogOf({ [input.definition.name]: input.definition }),
  jobs: new JobStatusStore(ledger),
  events: { publish: () => Promise.resolve() },
};

const cpuStart = process.cpuUsage();
const started = performance.now();
let detail: unknown;
if (input.mode === 'single') detail = await runJob(input.request, deps);
else if (input.mode === 'work') detail = await fetchBoardAnswers(input.plan!, input.boards!, deps);
else detail = await assembleFanOut(input.plan!, deps);
const cpu = process.cpuUsage(cpuStart);
reportResult({ wallMs: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000, detail });
