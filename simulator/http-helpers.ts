/** Small fetch helpers for the simulator's own tests. */
import type { RunningSimulator } from './server';

/** `Authorization` header value for HTTP Basic. */
export function basicAuth(email: string, apiKey: string): string {
  return `Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}`;
}

/** A response read completely. `json` is undefined when the body is not JSON. */
export interface ReadResponse {
  status: number;
  headers: Headers;
  text: string;
  // Tests inspect arbitrary response shapes; the unsafe-* rules are already off for test files.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

async function read(response: Response): Promise<ReadResponse> {
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Requests as one user (default: the admin). `auth: null` sends no Authorization header. */
export function client(sim: RunningSimulator, email?: string, auth?: string | null) {
  const creds = sim.credentials(email);
  const authorization = auth === undefined ? basicAuth(creds.email, creds.apiKey) : auth;
  const headers = (extra?: Record<string, string>): Record<string, string> => ({
    ...(authorization === null ? {} : { authorization }),
    ...extra,
  });
  return {
    /** GET {baseUrl}/api/v1/{path} */
    v1: async (path: string): Promise<ReadResponse> =>
      read(await fetch(`${creds.baseUrl}/api/v1/${path}`, { headers: headers() })),
    /** GET {legacyBaseUrl}/api/<prefix>/{path} */
    legacyGet: async (path: string): Promise<ReadResponse> =>
      read(await fetch(`${creds.legacyBaseUrl}/api/${creds.companyPrefix}/${path}`, { headers: headers() })),
    /** POST {legacyBaseUrl}/api/<prefix>/{path} with a JSON body */
    legacyPost: async (path: string, body: unknown, contentType = 'application/json'): Promise<ReadResponse> =>
      read(
        await fetch(`${creds.legacyBaseUrl}/api/${creds.companyPrefix}/${path}`, {
          method: 'POST',
          headers: headers({ 'content-type': contentType }),
          body: typeof body === 'string' ? body : JSON.stringify(body),
        }),
      ),
    /** Any URL with this user's Authorization header. */
    raw: async (url: string, init: RequestInit = {}): Promise<ReadResponse> =>
      read(await fetch(url, { ...init, headers: headers(init.headers as Record<string, string> | undefined) })),
  };
}
