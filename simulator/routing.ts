/** Types and helpers shared by the route modules. */
import type { Tenant, TenantView } from './tenant';
import type { ApiGroup, SimAddress, SimUser } from './types';
import type { Vocabulary } from './vocabulary';

/** A parsed, authenticated request. */
export interface RouteContext {
  tenant: Tenant;
  user: SimUser;
  view: TenantView;
  method: string;
  /** Decoded path segments after the address prefix (`/api/v1/` or `/api/<companyPrefix>/`). */
  segments: readonly string[];
  query: URLSearchParams;
  /** Parsed JSON body; undefined without a JSON body. */
  body: unknown;
  maxItemsPageSize: number | undefined;
  /** Field names and shapes of the answer (see vocabulary.ts). */
  vocabulary: Vocabulary;
}

/** What a route answers; `body` is serialised as JSON unless `raw` is given. */
export interface RouteResult {
  status: number;
  body?: unknown;
  /** A non-JSON body (sent with the Content-Type of `headers`). */
  raw?: string;
  headers?: Record<string, string>;
}

/**
 * Error body of the v1 address: `{"errorMessages":[...]}` as the contract's clients expect; in the
 * docs vocabulary `{"errorMessages":"..."}` for a 4xx and `{"error":"..."}` for a 5xx, as the
 * service's error page shows them.
 */
export function v1Error(status: number, message: string, vocabulary: Vocabulary = 'contract'): RouteResult {
  if (vocabulary === 'docs') return { status, body: status >= 500 ? { error: message } : { errorMessages: message } };
  return { status, body: { errorMessages: [message] } };
}

/** Error body of the legacy address: `{"error":"..."}`. */
export function legacyError(status: number, message: string): RouteResult {
  return { status, body: { error: message } };
}

/** Error in the shape of the given address. */
export function addressError(address: SimAddress, status: number, message: string, vocabulary: Vocabulary = 'contract'): RouteResult {
  return address === 'v1' ? v1Error(status, message, vocabulary) : legacyError(status, message);
}

/** The API group a request belongs to (collections and boards are shared by the two legacy groups). */
export function groupsOfRequest(address: SimAddress, segments: readonly string[]): readonly ApiGroup[] {
  const [first = ''] = segments;
  if (address === 'legacy') {
    if (first === 'objective-groups') return ['pi-objectives'];
    if (first === 'collections' || first === 'boards') return ['pi-objectives', 'pi-board-items'];
    return ['pi-board-items'];
  }
  const okr = ['portfolio-themes', 'strategic-themes', 'objective-groups', 'objectives', 'key-results'];
  return okr.includes(first) ? ['okr'] : ['risk'];
}

/** 405 with an Allow header. */
export function methodNotAllowed(address: SimAddress, allow: string): RouteResult {
  return { ...addressError(address, 405, `Method not allowed; use ${allow}`), headers: { Allow: allow } };
}

/** A route table entry: `undefined` from `handle` means "no such route". */
export type RouteHandler = (ctx: RouteContext) => RouteResult | undefined;
