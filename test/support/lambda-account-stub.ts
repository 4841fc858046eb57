import { REFUSAL_MESSAGE, restJsonAnswer, startHttpStub, type HttpStub } from './http-stub';

export interface LambdaAccountStub extends HttpStub {
  /** GetAccountSettings' AccountLimit: a new account's quota of 10 unless a test changes it. */
  readonly limit: { ConcurrentExecutions: number; UnreservedConcurrentExecutions: number };
  /** Reserved concurrency by function name (GetFunctionConcurrency). */
  readonly reserved: Map<string, number>;
  /** While true, every request is refused (403 AccessDeniedException, with a message that quotes ARNs). */
  refuse: boolean;
}

/**
 * Lambda's account calls in their own protocol (REST-JSON): GET /2016-08-19/account-settings and
 * GET /2019-09-30/functions/{name}/concurrency, so the real SDK client serializes, signs and parses.
 */
export async function startLambdaAccountStub(): Promise<LambdaAccountStub> {
  const limit = { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 };
  const reserved = new Map<string, number>();
  const stub = await startHttpStub((request) => {
    if (state.refuse) return restJsonAnswer(403, { message: REFUSAL_MESSAGE }, 'AccessDeniedException');
    if (request.method === 'GET' && /^\/2016-08-19\/account-settings\/?$/.test(request.path)) {
      return restJsonAnswer(200, { AccountLimit: { TotalCodeSize: 80_530_636_800, CodeSizeUnzipped: 262_144_000, CodeSizeZipped: 52_428_800, ...limit }, AccountUsage: { TotalCodeSize: 0, FunctionCount: 0 } });
    }
    const match = /^\/2019-09-30\/functions\/([^/]+)\/concurrency$/.exec(request.path);
    if (request.method !== 'GET' || !match) return restJsonAnswer(404, { Type: 'User', message: `no route ${request.path}` }, 'ResourceNotFoundException');
    const value = reserved.get(match[1]!);
    return restJsonAnswer(200, value === undefined ? {} : { ReservedConcurrentExecutions: value });
  });
  const state: LambdaAccountStub = Object.assign(stub, { limit, reserved, refuse: false });
  return state;
}
