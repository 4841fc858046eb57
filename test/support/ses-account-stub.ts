import { REFUSAL_MESSAGE, restJsonAnswer, startHttpStub, type HttpStub } from './http-stub';

export interface StubIdentity {
  readonly type: 'DOMAIN' | 'EMAIL_ADDRESS';
  readonly status: 'PENDING' | 'SUCCESS' | 'FAILED' | 'TEMPORARY_FAILURE' | 'NOT_STARTED';
}

export interface SesAccountStub extends HttpStub {
  readonly account: { ProductionAccessEnabled: boolean; SendingEnabled: boolean };
  /** GetAccount's SendQuota (the sandbox's by default: 1 a second, 200 a day). */
  readonly sendQuota: { Max24HourSend: number; MaxSendRate: number; SentLast24Hours: number };
  /** Identities by name (lower case): a domain or an address. */
  readonly identities: Map<string, StubIdentity>;
  /** While true, every request is refused (403 AccessDeniedException, with a message that quotes ARNs). */
  refuse: boolean;
}

/**
 * SES v2's account calls in their own protocol (REST-JSON): GET /v2/email/account and
 * GET /v2/email/identities/{identity}, which the local SES (aws-ses-v2-local) does not answer.
 */
export async function startSesAccountStub(): Promise<SesAccountStub> {
  const account = { ProductionAccessEnabled: true, SendingEnabled: true };
  const sendQuota = { Max24HourSend: 200, MaxSendRate: 1, SentLast24Hours: 0 };
  const identities = new Map<string, StubIdentity>();
  const stub = await startHttpStub((request) => {
    if (state.refuse) return restJsonAnswer(403, { message: REFUSAL_MESSAGE }, 'AccessDeniedException');
    if (request.method === 'GET' && request.path === '/v2/email/account') {
      return restJsonAnswer(200, { ...account, EnforcementStatus: 'HEALTHY', DedicatedIpAutoWarmupEnabled: false, SendQuota: sendQuota });
    }
    const match = /^\/v2\/email\/identities\/([^/]+)$/.exec(request.path);
    if (request.method !== 'GET' || !match) return restJsonAnswer(404, { message: `no route ${request.path}` }, 'NotFoundException');
    const identity = identities.get(match[1]!.toLowerCase());
    if (!identity) return restJsonAnswer(404, { message: `Email identity ${match[1]!} does not exist.` }, 'NotFoundException');
    return restJsonAnswer(200, { IdentityType: identity.type, VerificationStatus: identity.status, VerifiedForSendingStatus: identity.status === 'SUCCESS', FeedbackForwardingStatus: true });
  });
  const state: SesAccountStub = Object.assign(stub, { account, sendQuota, identities, refuse: false });
  return state;
}
