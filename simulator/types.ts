/** Public option and log types of the simulator. Record shapes are in records.ts. */

/** Named tenant sizes. See presets.ts for the exact counts. */
export type TenantPreset = 'tiny' | 'demo' | 'large' | 'portfolio' | 'portfolio-2m';

/**
 * Counts that define a generated tenant. Counts are exact, except that every 7th board item
 * (index % 7 === 6) has no stories and every 5th PI objective (index % 5 === 4) has no linked items,
 * and every 4th linked item (index % 4 === 3) has no sub-items (edge cases a client must handle).
 */
export interface TenantShape {
  registers: number;
  risksPerRegister: number;
  portfolioThemes: number;
  strategicThemesPerPortfolio: number;
  groupsPerTheme: number;
  objectivesPerGroup: number;
  keyResultsPerObjective: number;
  collections: number;
  boards: number;
  itemsPerBoard: number;
  storiesPerItem: number;
  piObjectiveGroupsPerBoard: number;
  objectivesPerPiGroup: number;
  linkedItemsPerObjective: number;
  subItemsPerLinkedItem: number;
}

/** Random faults, drawn per request from a PRNG seeded with the simulator seed. */
export interface FaultOptions {
  /** Probability (0..1) of answering 429 with a Retry-After header. */
  rate429?: number;
  /** Probability (0..1) of answering 500/502/503/504 (502-504 with an HTML body, like a gateway). */
  rate5xx?: number;
  /** Probability (0..1) of delaying the answer by `slowMs` (then answering normally). */
  rateSlow?: number;
  /** Delay of a slow response in ms; default 5000. */
  slowMs?: number;
  /** Retry-After header value sent with 429; default '0'. */
  retryAfter?: string;
  /** v1 lists ignore `startAt` and always answer the first page (a broken server). */
  ignoreStartAt?: boolean;
  /**
   * The tenant's rate limit: at most `perSecond` requests in any second of `now` (default: the system
   * clock); the rest are answered 429 with `Retry-After: 1`, tagged '429' (the fleet benchmark's tenants).
   */
  rateLimit?: { perSecond: number; now?: () => number };
}

/** A deterministic one-off fault, see RunningSimulator.injectFault. */
export interface InjectedFault {
  /**
   * 429 (with Retry-After), 500/502/503/504 (or any other status), 'slow' (delay, then answer),
   * 'reset' (destroy the socket), 'hang' (never answer; the socket stays open until the client gives
   * up or the simulator closes), 'oversized' (200 with a JSON body of `bytes` bytes, streamed),
   * 'malformed' (200 with a body that is not JSON: a proxy's maintenance page), 'repeat' (the usual
   * answer with every record of its `data`/`Data` list twice, as a server that repeats records would).
   */
  status: number | 'slow' | 'reset' | 'hang' | 'oversized' | 'malformed' | 'repeat';
  /** Body size for 'oversized'; default 80 MiB. */
  bytes?: number;
  /** How many matching requests get the fault; default 1. */
  times?: number;
  /** Retry-After value for a 429; default: the FaultOptions value, else '0'. */
  retryAfter?: string;
  /** Delay for 'slow'; default: FaultOptions.slowMs, else 5000. */
  delayMs?: number;
  /** Which requests qualify; default: any. `path` has no query string. */
  match?: (req: { method: string; path: string; query: URLSearchParams }) => boolean;
}

/** The four API groups of the service; a user may be refused one of them (see SimulatorOptions.refusedGroups). */
export type ApiGroup = 'risk' | 'okr' | 'pi-objectives' | 'pi-board-items';

/** A permission fault: `email` (default: every user) may not read `group`; answered 403. */
export interface GroupRefusal {
  group: ApiGroup;
  email?: string;
}

export interface SimulatorOptions {
  /** Default '127.0.0.1'. */
  host?: string | undefined;
  /** Port of the v1 address (paths /api/v1/...); default 0 (ephemeral). */
  port?: number | undefined;
  /** Port of the legacy address (paths /api/<companyPrefix>/...), a separate server; default 0. */
  legacyPort?: number | undefined;
  /** Default 'acme'. */
  companyPrefix?: string | undefined;
  /** Seed of all generated data and of random faults; default 1. */
  seed?: number | undefined;
  /** A preset name or explicit counts (missing counts come from 'tiny'); default 'demo'. */
  tenant?: TenantPreset | Partial<TenantShape> | undefined;
  /** Added to every response, in ms; default 0. */
  latencyMs?: number | undefined;
  faults?: FaultOptions | undefined;
  /**
   * Optional silent cap of `pageSize` on the board items operation (the real maximum is not
   * documented). Default: no cap. Set it to catch clients that stop on a short page.
   */
  maxItemsPageSize?: number | undefined;
  /** Default 'test' (see TenantFlavour); `npm run demo` uses 'demo'. */
  flavour?: TenantFlavour | undefined;
  /** The day a 'demo' tenant's dates revolve around; default: the real date when the simulator starts. Tests pass a fixed day. */
  today?: Date | undefined;
  /**
   * Waits out a delay (latency, slow faults) of `ms`. Default: a timer. Tests inject one to see the
   * delays applied and to hold an answer back until they release it, without reading a clock.
   * close() still cuts a pending delay.
   */
  wait?: ((ms: number) => Promise<void>) | undefined;
  /**
   * Field names and shapes served: 'contract' (the API contract's neutral names) or 'docs' (the
   * names and shapes of the service's public documentation, and its documented error answers:
   * 500 "No Session Board found" for an unknown board, 404 "Invalid company prefix in URL." for an
   * unknown prefix). Default: the SIMULATOR_VOCABULARY environment variable, else 'contract'.
   */
  vocabulary?: 'contract' | 'docs' | undefined;
  /** Groups refused to users (403), e.g. a key that may read risks but not OKRs. Changeable with refuseGroup. */
  refusedGroups?: readonly GroupRefusal[] | undefined;
}

/**
 * What the generated records read like. 'test' (the default): every awkward string an exporter must
 * survive (formula-like titles, control characters, a 40,000-character text, markup) and dates
 * anchored at fixed days, so tests are deterministic. 'demo': a release train as its people know
 * it (plain titles, no traps) with dates around `today`, so "overdue" and "this sprint" mean something.
 */
export type TenantFlavour = 'test' | 'demo';

/** Flavour and the day the tenant's dates revolve around (ms at 00:00 UTC; used by 'demo'). */
export interface TenantStory {
  readonly flavour: TenantFlavour;
  readonly todayMs: number;
}

/** A user of the simulated tenant. */
export interface SimUser {
  email: string;
  apiKey: string;
  displayName: string;
  /** 'admin' sees everything; the others see a subset (see users.ts). */
  role: 'admin' | 'risk-manager' | 'release-train-engineer';
}

/** Which address a request arrived at. */
export type SimAddress = 'v1' | 'legacy';

/** One received request, logged when its response is sent (or its socket reset). */
export interface RequestLogEntry {
  address: SimAddress;
  method: string;
  /** Path without the query string. */
  path: string;
  /** Query parameters (the last value wins for repeated names). */
  query: Record<string, string>;
  /** Parsed JSON body (or the raw text when it is not JSON) of requests that have one. */
  body?: unknown;
  /** HTTP status sent; 0 when the socket was reset. */
  status: number;
  /** E-mail of the authenticated user, when authentication succeeded. */
  user?: string;
  /** Set when a fault decided the response: random ('429', '5xx', 'slow') or injectFault ('injected'). */
  fault?: '429' | '5xx' | 'slow' | 'injected';
}

/** The credentials document (shared/planning-api/credentials.ts) of one user. */
export interface SimCredentials {
  email: string;
  apiKey: string;
  baseUrl: string;
  legacyBaseUrl: string;
  companyPrefix: string;
}
