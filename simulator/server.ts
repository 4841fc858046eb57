/** The HTTP servers: one for the v1 address, one for the legacy address, sharing one tenant. */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FaultController, type FaultDecision } from './faults';
import { resolveShape } from './presets';
import { handleLegacyRoute } from './routes-legacy';
import { handleOkrRoute } from './routes-okr';
import { handleRiskRoute } from './routes-risk';
import { addressError, groupsOfRequest, type RouteContext, type RouteResult } from './routing';
import { defaultVocabulary, type Vocabulary } from './vocabulary';
import { evolveTenant, type TenantAdvance } from './evolution';
import { generateTenant, type Tenant } from './tenant';
import type {
  ApiGroup,
  FaultOptions,
  GroupRefusal,
  InjectedFault,
  RequestLogEntry,
  SimAddress,
  SimCredentials,
  SimulatorOptions,
  SimUser,
} from './types';

/** A started simulator. */
export interface RunningSimulator {
  /** e.g. http://127.0.0.1:43121 (paths /api/v1/...). */
  readonly v1BaseUrl: string;
  /** e.g. http://127.0.0.1:43122 (paths /api/<companyPrefix>/...), a separate server. */
  readonly legacyBaseUrl: string;
  readonly companyPrefix: string;
  /** admin (sees everything), alice and bob (see a subset); see users.ts. */
  readonly users: readonly SimUser[];
  /** Credentials document of a user (default: the admin); throws for an unknown e-mail. */
  credentials(email?: string): SimCredentials;
  /** The generated data and visibility helpers. */
  readonly tenant: Tenant;
  /** Every request received, in the order responses were sent. Cleared in place by clearRequests. */
  readonly requests: RequestLogEntry[];
  /**
   * Resolves with the first request logged from now on that `match` accepts (default: any), so a test
   * awaits the request, not a clock. A hung request is logged when it arrives.
   */
  nextRequest(match?: (entry: RequestLogEntry) => boolean): Promise<RequestLogEntry>;
  clearRequests(): void;
  /** Replaces the random fault options. */
  setFaults(faults: FaultOptions): void;
  /** Sets the latency added to every response. */
  setLatency(ms: number): void;
  /**
   * Deterministic one-off faults: the next `times` (default 1) requests matching `match` (default:
   * any) get `status` (429 with Retry-After, 500/502/503/504 or another status, 'slow' = delay then
   * answer normally, 'reset' = destroy the socket without answering, 'hang' = never answer,
   * 'oversized' = a streamed 200 body of `bytes` bytes, 'malformed' = a 200 that is not JSON,
   * 'repeat' = the answer with every record of its list twice).
   */
  injectFault(fault: InjectedFault): void;
  /** Moves the tenant forward (see evolution.ts): the next requests see the changes. */
  advance(changes: TenantAdvance): void;
  /** Drops the injected faults that have not fired yet. */
  clearInjectedFaults(): void;
  /** The vocabulary the simulator speaks (see SimulatorOptions.vocabulary). */
  readonly vocabulary: Vocabulary;
  /** From now on `email` (default: every user) is refused `group` with a 403. */
  refuseGroup(group: ApiGroup, email?: string): void;
  /** Drops every group refusal. */
  clearRefusals(): void;
  /** Stops both servers, cutting open connections and pending delays. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1_000_000;

const GATEWAY_HTML = (status: number): string => {
  const text = `${status} ${STATUS_CODES[status] ?? 'Error'}`;
  return `<html>\r\n<head><title>${text}</title></head>\r\n<body>\r\n<center><h1>${text}</h1></center>\r\n</body>\r\n</html>\r\n`;
};

function faultResult(address: SimAddress, fault: Extract<FaultDecision, { kind: 'status' }>, vocabulary: Vocabulary): RouteResult {
  const { status } = fault;
  if (status === 429) {
    return { ...addressError(address, 429, 'Rate limit exceeded', vocabulary), headers: { 'Retry-After': fault.retryAfter ?? '0' } };
  }
  if (status === 502 || status === 503 || status === 504) {
    // What a gateway in front of the service answers: HTML, not JSON.
    return { status, raw: GATEWAY_HTML(status), headers: { 'Content-Type': 'text/html' } };
  }
  return addressError(address, status, status >= 500 ? 'Internal server error' : (STATUS_CODES[status] ?? 'Error'), vocabulary);
}

/** What a proxy in maintenance answers with a 200: a page, not the API's JSON. */
const MAINTENANCE_PAGE = '<html><head><title>Maintenance</title></head><body><h1>Back soon</h1></body></html>\r\n';

/** The answer with each record of its list (`data` or `Data`) given twice, one after the other. */
function repeated(result: RouteResult): RouteResult {
  const body = result.body;
  if (result.status !== 200 || body === null || typeof body !== 'object') return result;
  const envelope = body as Record<string, unknown>;
  const key = Array.isArray(envelope.data) ? 'data' : Array.isArray(envelope.Data) ? 'Data' : undefined;
  if (key === undefined) return result;
  const records = envelope[key] as unknown[];
  return { ...result, body: { ...envelope, [key]: records.flatMap((r) => [r, r]) } };
}

const GROUP_NAMES: Record<ApiGroup, string> = {
  risk: 'Risk API',
  okr: 'Strategic Themes & OKRs API',
  'pi-objectives': 'PI Objectives API',
  'pi-board-items': 'PI Board Items API',
};

/** Whether every group a request belongs to is refused to `email`. */
function refused(refusals: readonly GroupRefusal[], groups: readonly ApiGroup[], email: string): boolean {
  return groups.every((group) => refusals.some((r) => r.group === group && (r.email === undefined || r.email === email)));
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined));
    req.on('error', reject);
  });
}

/**
 * A 200 answer of `bytes` bytes of valid JSON, written chunk by chunk with backpressure so the
 * simulator itself never holds it in memory. Stops quietly when the client hangs up.
 */
async function streamOversized(res: ServerResponse, bytes: number): Promise<void> {
  const head = '{"startAt":0,"pageLimit":50,"total":1,"data":[],"padding":"';
  const tail = '"}';
  const chunk = Buffer.alloc(64 * 1024, 0x78);
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
  res.write(head);
  let left = Math.max(0, bytes - head.length - tail.length);
  while (left > 0 && !res.destroyed) {
    const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
    left -= piece.length;
    if (!res.write(piece)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  if (!res.destroyed) res.end(tail);
}

function decodeBasic(header: string | undefined): { email: string; apiKey: string } | undefined {
  const match = /^\s*basic\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { email: decoded.slice(0, colon), apiKey: decoded.slice(colon + 1) };
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Starts the simulator (both addresses). */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const host = options.host ?? '127.0.0.1';
  const companyPrefix = options.companyPrefix ?? 'acme';
  if (!/^[A-Za-z0-9_-]+$/.test(companyPrefix) || companyPrefix === 'v1') {
    throw new Error(`Invalid companyPrefix '${companyPrefix}'`);
  }
  const seed = options.seed ?? 1;
  const vocabulary = options.vocabulary ?? defaultVocabulary();
  const refusals: GroupRefusal[] = [...(options.refusedGroups ?? [])];
  const fail = (address: SimAddress, status: number, message: string): RouteResult => addressError(address, status, message, vocabulary);
  const today = options.today ?? new Date();
  const evolving = evolveTenant(generateTenant(resolveShape(options.tenant), seed, companyPrefix, {
    flavour: options.flavour ?? 'test',
    todayMs: Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()),
  }));
  const tenant = evolving.tenant;
  const faults = new FaultController(seed, options.faults);
  let latencyMs = Math.max(0, options.latencyMs ?? 0);
  const requests: RequestLogEntry[] = [];
  const watchers = new Set<(entry: RequestLogEntry) => void>();
  const logRequest = (entry: RequestLogEntry): void => {
    requests.push(entry);
    for (const watch of watchers) watch(entry);
  };
  const sleepers = new Set<{ timer: NodeJS.Timeout | undefined; resolve: () => void }>();
  let closed = false;

  const sleep = (ms: number): Promise<void> => {
    if (ms <= 0 || closed) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper: { timer: NodeJS.Timeout | undefined; resolve: () => void } = { timer: undefined, resolve };
      const done = () => {
        sleepers.delete(sleeper);
        resolve();
      };
      if (options.wait) void options.wait(ms).then(done, done);
      else sleeper.timer = setTimeout(done, ms);
      sleepers.add(sleeper);
    });
  };

  const roots: Record<SimAddress, string> = { v1: '/api/v1/', legacy: `/api/${companyPrefix}/` };

  const route = (
    address: SimAddress,
    req: IncomingMessage,
    path: string,
    query: URLSearchParams,
    body: { raw: string | undefined; parsed: unknown; invalid: boolean },
    entry: RequestLogEntry,
  ): RouteResult => {
    const root = roots[address];
    if (!path.startsWith(root)) {
      const unknownCompany = address === 'legacy' && path.startsWith('/api/');
      if (unknownCompany && vocabulary === 'docs') return fail(address, 404, 'Invalid company prefix in URL.');
      return fail(address, 404, unknownCompany ? 'Unknown company prefix' : `No route for ${path}`);
    }
    const credentials = decodeBasic(req.headers.authorization);
    const challenge = { 'WWW-Authenticate': 'Basic realm="planning"' };
    const badKey = vocabulary === 'docs' && address === 'legacy' ? 'Invalid API Key' : 'Invalid e-mail or API key';
    if (!credentials) {
      return { ...fail(address, 401, vocabulary === 'docs' && address === 'legacy' ? badKey : 'Authentication required'), headers: challenge };
    }
    const user = tenant.users.find((u) => u.email === credentials.email && u.apiKey === credentials.apiKey);
    if (!user) return { ...fail(address, 401, badKey), headers: challenge };
    entry.user = user.email;
    let segments: string[];
    try {
      segments = path
        .slice(root.length)
        .split('/')
        .filter((s) => s !== '')
        .map((s) => decodeURIComponent(s));
    } catch {
      return fail(address, 404, `No route for ${path}`);
    }
    const groups = groupsOfRequest(address, segments);
    if (refused(refusals, groups, user.email)) {
      return fail(address, 403, `You do not have permission to use the ${groups.map((g) => GROUP_NAMES[g]).join(' or ')}`);
    }
    // A JSON body is only read with a JSON Content-Type (like common body parsers).
    const isJson = /application\/json/i.test(req.headers['content-type'] ?? '');
    if (isJson && body.invalid) return fail(address, 400, 'Invalid JSON body');
    const ctx: RouteContext = {
      tenant,
      user,
      view: tenant.visibleTo(user.email),
      method: (req.method ?? 'GET').toUpperCase(),
      segments,
      query,
      body: isJson ? body.parsed : undefined,
      maxItemsPageSize: options.maxItemsPageSize,
      vocabulary,
    };
    const result = address === 'v1' ? (handleOkrRoute(ctx) ?? handleRiskRoute(ctx)) : handleLegacyRoute(ctx);
    return result ?? fail(address, 404, `No route for ${ctx.method} ${path}`);
  };

  const send = (res: ServerResponse, result: RouteResult, entry: RequestLogEntry): void => {
    entry.status = result.status;
    logRequest(entry);
    if (res.destroyed || res.writableEnded) return;
    const payload = result.raw ?? JSON.stringify(result.body ?? null);
    res.writeHead(result.status, {
      'Content-Type': 'application/json; charset=utf-8',
      ...result.headers,
      'Content-Length': Buffer.byteLength(payload),
    });
    res.end(payload);
  };

  const handle = async (address: SimAddress, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.on('error', () => undefined);
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const path = url.pathname;
    const query = url.searchParams;
    const method = (req.method ?? 'GET').toUpperCase();
    const raw = await readBody(req);
    const entry: RequestLogEntry = { address, method, path, query: Object.fromEntries(query), status: 0 };
    let parsed: unknown;
    let invalid = false;
    if (raw !== undefined) {
      try {
        parsed = JSON.parse(raw);
      } catch {
        invalid = true;
      }
      entry.body = invalid ? raw : parsed;
    }
    const fault = faults.decide({ method, path, query });
    if (fault) entry.fault = fault.tag;
    if (fault?.kind === 'reset') {
      logRequest(entry);
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'hang') {
      // Never answered: close() cuts the connection (closeAllConnections).
      logRequest(entry);
      return;
    }
    if (fault?.kind === 'oversized') {
      entry.status = 200;
      logRequest(entry);
      await streamOversized(res, fault.bytes);
      return;
    }
    // A broken v1 server: every page is the first one (the log keeps what was asked).
    if (address === 'v1' && faults.ignoresStartAt) query.delete('startAt');
    await sleep(latencyMs);
    if (fault?.kind === 'slow') await sleep(fault.delayMs);
    if (closed) {
      entry.status = 0;
      logRequest(entry);
      return;
    }
    if (fault?.kind === 'malformed') {
      send(res, { status: 200, raw: MAINTENANCE_PAGE, headers: { 'Content-Type': 'text/html' } }, entry);
      return;
    }
    const result = fault?.kind === 'status' ? faultResult(address, fault, vocabulary) : route(address, req, path, query, { raw, parsed, invalid }, entry);
    send(res, fault?.kind === 'repeat' ? repeated(result) : result, entry);
  };

  const makeServer = (address: SimAddress): Server => {
    const server = createServer((req, res) => {
      handle(address, req, res).catch((error: unknown) => {
        const entry: RequestLogEntry = { address, method: req.method ?? 'GET', path: req.url ?? '/', query: {}, status: 0 };
        send(res, addressError(address, 500, `Simulator error: ${error instanceof Error ? error.message : String(error)}`), entry);
      });
    });
    server.keepAliveTimeout = 5_000;
    return server;
  };

  const v1Server = makeServer('v1');
  const legacyServer = makeServer('legacy');
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let v1Address: AddressInfo;
  let legacyAddress: AddressInfo;
  try {
    v1Address = await listen(v1Server, options.port ?? 0, host);
    legacyAddress = await listen(legacyServer, options.legacyPort ?? 0, host);
  } catch (error) {
    await Promise.all([closeServer(v1Server), closeServer(legacyServer)]);
    throw error;
  }
  const v1BaseUrl = `http://${urlHost}:${v1Address.port}`;
  const legacyBaseUrl = `http://${urlHost}:${legacyAddress.port}`;

  return {
    v1BaseUrl,
    legacyBaseUrl,
    companyPrefix,
    users: tenant.users,
    credentials(email) {
      const user = email === undefined ? tenant.users[0] : tenant.users.find((u) => u.email === email);
      if (!user) throw new Error(`Unknown simulator user '${String(email)}'`);
      return { email: user.email, apiKey: user.apiKey, baseUrl: v1BaseUrl, legacyBaseUrl, companyPrefix };
    },
    tenant,
    requests,
    clearRequests() {
      requests.length = 0;
    },
    nextRequest(match = () => true) {
      return new Promise((resolve) => {
        const watch = (entry: RequestLogEntry): void => {
          if (!match(entry)) return;
          watchers.delete(watch);
          resolve(entry);
        };
        watchers.add(watch);
      });
    },
    setFaults(f) {
      faults.set(f);
    },
    setLatency(ms) {
      latencyMs = Math.max(0, ms);
    },
    injectFault(f) {
      faults.inject(f);
    },
    clearInjectedFaults() {
      faults.clearInjected();
    },
    vocabulary,
    refuseGroup(group, email) {
      refusals.push(email === undefined ? { group } : { group, email });
    },
    clearRefusals() {
      refusals.length = 0;
    },
    advance(changes) {
      evolving.advance(changes);
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const sleeper of sleepers) {
        if (sleeper.timer) clearTimeout(sleeper.timer);
        sleeper.resolve();
      }
      sleepers.clear();
      await Promise.all([closeServer(v1Server), closeServer(legacyServer)]);
    },
  };
}
