/**
 * The client's CPU per record against the floor of any JavaScript client, measured apart from the
 * network: the answers of the fetch tenant (risks and board items, as the export asks for them) are
 * recorded once from the simulator, then served again from memory, so each round costs only what
 * this process does with them. Three measurements per round, in alternating order:
 * - JSON.parse of each answer already decoded (the floor the issue names);
 * - decoding each answer's bytes and JSON.parse (what any client must do with a body);
 * - the export's client: transport, decoding, envelopes, validation, paging, the limiter.
 */
import { reportResult, workerInput } from '../lib/worker';
import { silentLog } from '../../shared/core/logger';
import type { Credentials } from '../../shared/planning-api/credentials';
import { decodeBody } from '../../shared/planning-api/transport/http-transport';
import type { PlanningApiClient } from '../../shared/planning-api/client';
import { createExportClient } from '../../shared/report/run/plan-run';
import { systemClock } from '../../shared/core/clock';
import { resolveExportSettings } from '../../shared/report/definition/export-settings';
import { BOARD_ITEM_FIELDS } from '../../shared/report/tables/board-items/board-items-fetch';

interface Input {
  credentials: Credentials;
  concurrency: number;
  rounds: number;
}

export interface ClientCpuResult {
  requests: number;
  bytes: number;
  /** Records in the answers: risks, features and their stories. */
  records: number;
  /** CPU ms of each round. */
  parseMs: number[];
  decodeParseMs: number[];
  clientMs: number[];
}

const input = workerInput<Input>();
const answers = new Map<string, Uint8Array>();
const keyOf = (url: Parameters<typeof fetch>[0], init?: RequestInit): string =>
  `${url instanceof Request ? url.url : String(url)} ${typeof init?.body === 'string' ? init.body : ''}`;

const recording: typeof fetch = async (url, init) => {
  const response = await fetch(url, init);
  const body = new Uint8Array(await response.arrayBuffer());
  answers.set(keyOf(url, init), body);
  return new Response(body, { status: response.status, headers: response.headers });
};
const replaying: typeof fetch = (url, init) => {
  const body = answers.get(keyOf(url, init));
  if (!body) return Promise.reject(new Error(`no recorded answer for ${keyOf(url, init)}`));
  return Promise.resolve(new Response(body, { status: 200, headers: { 'content-type': 'application/json' } }));
};

/** What the risks and board-items datasets ask of the client, every record taken and dropped. */
async function fetchAll(client: PlanningApiClient): Promise<number> {
  let records = 0;
  const registers = [];
  for await (const register of client.listRiskRegisters()) registers.push(register);
  const risks = registers.map(async (register) => {
    for await (const _risk of client.listRisks(register.id)) records++;
  });
  const boards = (await client.listBoards()).map(async (board) => {
    for await (const page of client.listBoardItemPages(board.id, { fields: BOARD_ITEM_FIELDS })) {
      for (const item of page.items) records += 1 + (item.stories?.length ?? 0) + (item.children?.length ?? 0);
    }
  });
  await Promise.all([...risks, ...boards]);
  return records;
}

const clientOf = (f: typeof fetch): PlanningApiClient =>
  createExportClient(input.credentials, { settings: resolveExportSettings({ concurrency: input.concurrency }), log: silentLog, clock: systemClock, planning: { fetch: f } });

const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const timed = async (work: () => unknown): Promise<number> => {
  const start = cpuMs();
  await work();
  return cpuMs() - start;
};

const records = await fetchAll(clientOf(recording));
const bodies = [...answers.values()].map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength));
const texts = bodies.map((b) => decodeBody(b));
const result: ClientCpuResult = {
  requests: answers.size,
  bytes: bodies.reduce((n, b) => n + b.byteLength, 0),
  records,
  parseMs: [],
  decodeParseMs: [],
  clientMs: [],
};
const parse = () => {
  for (const text of texts) JSON.parse(text);
};
const decodeParse = () => {
  for (const body of bodies) JSON.parse(decodeBody(body));
};
const replay = async () => {
  const n = await fetchAll(clientOf(replaying));
  if (n !== records) throw new Error(`replay saw ${n} records, the recording ${records}`);
};
for (let round = 0; round < input.rounds; round++) {
  const order = [
    async () => result.parseMs.push(await timed(parse)),
    async () => result.decodeParseMs.push(await timed(decodeParse)),
    async () => result.clientMs.push(await timed(replay)),
  ];
  for (const step of round % 2 === 0 ? order : order.reverse()) await step();
}
reportResult(result);
