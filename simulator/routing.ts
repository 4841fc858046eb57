/** Types and helpers shared by the route modules. */
import type { Tenant, TenantView } from './tenant';
import type { SimAddress, SimUser } from './types';

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
}

/** What a route answers; `body` is serialised as JSON unless `raw` is given. */
export interface RouteResult {
  status: number;
  body?: unknown;
  /** A non-JSON body (sent with the Content-Type of `headers`). */
  raw?: string;
  headers?: Record<string, string>;
}

/** Error body of the v1 address: `{"errorMessages":[...]}`. */
export function v1Error(status: number, message: string): RouteResult {
  return { status, body: { errorMessages: [message] } };
}

/** Error body of the legacy address: `{"error":"..."}`. */
export function legacyError(status: number, message: string): RouteResult {
  return { status, body: { error: message } };
}

/** Error in the shape of the given address. */
export function addressError(address: SimAddress, status: number, message: string): RouteResult {
  return address === 'v1' ? v1Error(status, message) : legacyError(status, message);
}

/** 405 with an Allow header. */
export function methodNotAllowed(address: SimAddress, allow: string): RouteResult {
  return { ...addressError(address, 405, `Method not allowed; use ${allow}`), headers: { Allow: allow } };
}

/** A route table entry: `undefined` from `handle` means "no such route". */
export type RouteHandler = (ctx: RouteContext) => RouteResult | undefined;
