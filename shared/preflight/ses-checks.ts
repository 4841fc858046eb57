import { errorMessage } from '../core/errors';
import { cannotTell, notOk, ok, type Check } from './check';
import type { DeploymentSettings, KnownReport, ReportFields, SesAccountReader, SesAccountState, SesIdentityState } from './ports';

const area = 'e-mail' as const;

/** The region and the identity (a domain or an address) of an SES identity ARN. */
function identityOf(arn: string): { region: string; name: string } | undefined {
  const match = /^arn:aws[a-z-]*:ses:([a-z0-9-]+):\d{12}:identity\/(\S+)$/.exec(arn);
  return match ? { region: match[1]!, name: match[2]! } : undefined;
}

type EmailOf = NonNullable<ReportFields['email']>;

function emailsOf(report: KnownReport): EmailOf[] {
  const { email, deliveries } = report.definition;
  return [...(email ? [email] : []), ...(deliveries ?? []).flatMap((d) => (d.email ? [d.email] : []))];
}

/** Every address the reports e-mail: recipients, copies and the owners told of failures. */
export function recipientsOf(reports: readonly KnownReport[]): string[] {
  const all = reports.flatMap(emailsOf).flatMap((e) => [...e.to.map((r) => (typeof r === 'string' ? r : r.address)), ...(e.cc ?? []), ...(e.onFailure ?? [])]);
  return [...new Set(all.map((a) => a.toLowerCase()))].sort();
}

/** Whether an identity lets the account send from an address: the address itself, or its domain (or a parent domain). */
function covers(identity: string, address: string): boolean {
  const id = identity.toLowerCase();
  const from = address.toLowerCase();
  if (id.includes('@')) return id === from;
  const domain = from.slice(from.lastIndexOf('@') + 1);
  return domain === id || domain.endsWith(`.${id}`);
}

/** SES identity lookups, each asked once (the sender's domain may also be a recipient's). */
function identityCache(ses: SesAccountReader): (name: string) => Promise<SesIdentityState | undefined> {
  const seen = new Map<string, Promise<SesIdentityState | undefined>>();
  return (name) => {
    const key = name.toLowerCase();
    if (!seen.has(key)) seen.set(key, ses.identity(key));
    return seen.get(key)!;
  };
}

const createIdentity = (name: string, region: string) => `aws sesv2 create-email-identity --email-identity ${name} --region ${region}`;

function verifyFix(name: string, state: SesIdentityState | undefined, region: string): string {
  if (!state) return `${createIdentity(name, region)}, then ${name.includes('@') ? 'open the link AWS e-mails to that address' : 'publish the DKIM CNAME records it prints'}`;
  return state.type === 'domain'
    ? `publish the DKIM CNAME records: aws sesv2 get-email-identity --email-identity ${name} --region ${region} --query DkimAttributes.Tokens (SES console → Identities → ${name})`
    : `open the link AWS e-mailed to ${name} (SES console → Identities → ${name} → Send verification e-mail again)`;
}

/** The sender: configured, in the stack's region, verified, and covering every address the reports send from. */
async function checkSender(region: string, settings: DeploymentSettings, reports: readonly KnownReport[], identity: ReturnType<typeof identityCache>): Promise<Check[]> {
  const cdkJson = 'set reportExporter.sesIdentityArn (arn:aws:ses:<region>:<account>:identity/<domain or address>) and mailFrom in cdk.json, then deploy';
  const parsed = settings.sesIdentityArn === undefined ? undefined : identityOf(settings.sesIdentityArn);
  if (!parsed) return [notOk({ area, name: 'SES identity', blocks: true, detail: 'cdk.json sets no sesIdentityArn: the stack e-mails nobody', fix: cdkJson })];
  const fields = { area, name: `SES identity ${parsed.name}`, blocks: true };
  if (parsed.region !== region) {
    return [notOk({ ...fields, detail: `is in ${parsed.region}, the stack in ${region}: SES sends from the stack's region`, fix: `${createIdentity(parsed.name, region)}, and set sesIdentityArn to its ARN in ${region}` })];
  }
  let state: SesIdentityState | undefined;
  try {
    state = await identity(parsed.name);
  } catch (error) {
    return [cannotTell({ ...fields, detail: errorMessage(error) })];
  }
  const identityCheck = state?.verified
    ? ok({ ...fields, detail: `verified for sending in ${region}` })
    : notOk({ ...fields, detail: state ? `not verified (${state.status})` : `does not exist in ${region}`, fix: verifyFix(parsed.name, state, region) });
  const senders = new Set([...(settings.mailFrom ? [settings.mailFrom] : []), ...reports.flatMap(emailsOf).flatMap((e) => (e.from ? [e.from] : []))]);
  const mailing = reports.some((r) => emailsOf(r).some((e) => e.from === undefined));
  const outside = [...senders].filter((from) => !covers(parsed.name, from));
  const senderFields = { area, name: 'sender', blocks: true };
  let senderCheck: Check;
  if (mailing && !settings.mailFrom) senderCheck = notOk({ ...senderFields, detail: 'cdk.json sets no mailFrom, and a report names no from', fix: cdkJson });
  else if (outside.length > 0) senderCheck = notOk({ ...senderFields, detail: `${outside.join(', ')} ${outside.length === 1 ? 'is' : 'are'} not covered by ${parsed.name}: SES and the stack's permission allow only its addresses`, fix: `send from an address of ${parsed.name} (mailFrom in cdk.json, email.from in a report)` });
  else senderCheck = ok({ ...senderFields, detail: senders.size === 0 ? 'no sender needed yet' : `${[...senders].join(', ')} may send through ${parsed.name}` });
  return [identityCheck, senderCheck];
}

/** The account's sending state; in the sandbox, whether every recipient is verified. */
async function checkAccount(region: string, recipients: readonly string[], ses: SesAccountReader, identity: ReturnType<typeof identityCache>): Promise<Check[]> {
  const fields = { area, name: 'SES account', blocks: false };
  let account: SesAccountState;
  try {
    account = await ses.account();
  } catch (error) {
    return [cannotTell({ ...fields, detail: `${errorMessage(error)}; sandbox state unknown`, blocks: true })];
  }
  if (!account.sendingEnabled) return [notOk({ ...fields, blocks: true, detail: `sending is paused for this account in ${region}`, fix: 'SES console → Account dashboard (the reason and the appeal are there)' })];
  if (account.productionAccess) return [ok({ ...fields, detail: `out of the sandbox in ${region}: any recipient` })];
  const sandbox = notOk({
    ...fields,
    detail: `in the sandbox in ${region}: mail only to verified addresses and domains, 200 a day`,
    fix: `SES console → Account dashboard → Request production access (or aws sesv2 put-account-details --region ${region} --production-access-enabled --mail-type TRANSACTIONAL --website-url <url> --use-case-description "weekly planning reports to our staff")`,
  });
  const unverified: string[] = [];
  try {
    for (const address of recipients) {
      const own = await identity(address);
      if (own?.verified) continue;
      const domain = await identity(address.slice(address.lastIndexOf('@') + 1));
      if (!domain?.verified) unverified.push(address);
    }
  } catch (error) {
    return [sandbox, cannotTell({ area, name: 'recipients (sandbox)', blocks: true, detail: errorMessage(error) })];
  }
  const name = 'recipients (sandbox)';
  if (unverified.length === 0) return [sandbox, ok({ area, name, blocks: true, detail: recipients.length === 0 ? 'no report e-mails anyone yet' : recipients.length === 1 ? 'the one recipient is verified' : `all ${recipients.length} verified` })];
  return [
    sandbox,
    notOk({ area, name, blocks: true, detail: `not verified, so the sandbox refuses them: ${unverified.join(', ')}`, fix: `${unverified.map((a) => createIdentity(a, region)).join('; ')} (each opens the link AWS e-mails them), or leave the sandbox` }),
  ];
}

/** SES for the reports in use: identity, sender, account, and in the sandbox the recipients. */
export async function checkEmail(region: string, settings: DeploymentSettings, reports: readonly KnownReport[], ses: SesAccountReader): Promise<Check[]> {
  const identity = identityCache(ses);
  return [...(await checkSender(region, settings, reports, identity)), ...(await checkAccount(region, recipientsOf(reports), ses, identity))];
}
