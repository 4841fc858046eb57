import { GetAccountCommand, GetEmailIdentityCommand, NotFoundException, SESv2Client } from '@aws-sdk/client-sesv2';
import type { SesAccountReader, SesAccountState, SesIdentityState } from './ports';
import { awsReadError } from './read-error';

/** An SES v2 client for a region, at a local stand-in's endpoint in tests. */
export function createSesAccountClient(region: string, endpoint?: string): SESv2Client {
  return new SESv2Client({ region, ...(endpoint !== undefined && { endpoint }) });
}

/** The account's sending state and its identities, through SES v2 GetAccount and GetEmailIdentity. */
export class SesV2AccountReader implements SesAccountReader {
  constructor(private readonly client: SESv2Client = new SESv2Client({})) {}

  async account(): Promise<SesAccountState> {
    try {
      const answer = await this.client.send(new GetAccountCommand({}));
      return {
        productionAccess: answer.ProductionAccessEnabled === true,
        sendingEnabled: answer.SendingEnabled !== false,
        maxSendRate: answer.SendQuota?.MaxSendRate,
        max24HourSend: answer.SendQuota?.Max24HourSend,
      };
    } catch (error) {
      throw awsReadError('ses:GetAccount', error);
    }
  }

  async identity(name: string): Promise<SesIdentityState | undefined> {
    try {
      const answer = await this.client.send(new GetEmailIdentityCommand({ EmailIdentity: name }));
      return {
        verified: answer.VerifiedForSendingStatus === true,
        status: answer.VerificationStatus ?? 'NOT_STARTED',
        type: answer.IdentityType === 'DOMAIN' ? 'domain' : 'address',
      };
    } catch (error) {
      if (error instanceof NotFoundException) return undefined;
      throw awsReadError('ses:GetEmailIdentity', error);
    }
  }
}
