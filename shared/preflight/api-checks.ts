import { CredentialsError, errorMessage } from '../core/errors';
import type { Credentials } from '../planning-api/credentials';
import type { DatasetEntry } from '../report/dataset/dataset';
import { DATASETS } from '../report/tables/registry';
import { parseCredentialsDocument } from '../secrets/secret-document';
import { cannotTell, notOk, ok, type Check } from './check';
import type { ApiProbe, SecretReader } from './ports';

/** Where the planning API credentials are, and how a command names them without printing an ARN. */
export interface SecretLocation {
  readonly id: string;
  /** How the output and the fix name it: a name as it is, the stack's ARN through cdk-outputs.json. */
  readonly label: string;
  readonly shellRef: string;
  /** Whether the stack created it (then it starts as the generated placeholder). */
  readonly createdByStack: boolean;
}

/** The apiKey of examples/credentials.example.json: a copy of the example is not the real document. */
const EXAMPLE_API_KEY = 'replace-with-the-api-key';

/** The placeholder the stack generates (empty fields beside a generated `placeholder` key), or the example's. */
function isPlaceholder(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return false;
  }
  if (typeof value !== 'object' || value === null) return false;
  const fields = value as Record<string, unknown>;
  return ('placeholder' in fields && !fields.apiKey) || fields.apiKey === EXAMPLE_API_KEY;
}

const putSecretCommand = (secret: SecretLocation, region: string) =>
  `aws secretsmanager put-secret-value --region ${region} --secret-id ${secret.shellRef} --secret-string file://credentials.json (examples/credentials.example.json shows the fields; then rm credentials.json)`;

/** The secret: present, JSON with every field, not the placeholder. The credentials when it is all three. */
export async function checkPlanningSecret(
  secret: SecretLocation | undefined,
  region: string,
  reader: SecretReader,
): Promise<{ check: Check; credentials?: Credentials }> {
  const fields = { area: 'planning API' as const, name: 'planning API secret', blocks: true };
  if (!secret) {
    return { check: cannotTell({ ...fields, detail: "no secret to read: the stack's PlanningSecretId output is not known (not deployed, or not readable) and cdk.json names no planningSecretName", fix: 'deploy first (the stack creates the secret), or give --secret-id' }) };
  }
  let text: string | undefined;
  try {
    text = await reader.read(secret.id);
  } catch (error) {
    return { check: cannotTell({ ...fields, detail: `${secret.label}: ${errorMessage(error)}` }) };
  }
  if (text === undefined) {
    const fix = secret.createdByStack
      ? 'deploy the stack again (it creates the secret)'
      : `aws secretsmanager create-secret --region ${region} --name ${secret.shellRef} --secret-string file://credentials.json`;
    return { check: notOk({ ...fields, detail: `${secret.label} does not exist in ${region}`, fix }) };
  }
  if (isPlaceholder(text)) {
    return { check: notOk({ ...fields, detail: `${secret.label} still holds the placeholder, not the planning API credentials: every export fails until it does`, fix: putSecretCommand(secret, region) }) };
  }
  try {
    const credentials = parseCredentialsDocument(text, secret.label);
    return { check: ok({ ...fields, detail: `${secret.label}: ${credentials.email} at ${credentials.baseUrl}, company prefix ${credentials.companyPrefix}` }), credentials };
  } catch (error) {
    if (!(error instanceof CredentialsError)) throw error;
    return { check: notOk({ ...fields, detail: error.message, fix: putSecretCommand(secret, region) }) };
  }
}

/**
 * Each API group asked once with the credentials: a group that refuses blocks a first e-mail when a
 * report in use reads a dataset it serves (the datasets' entries name their group). A wrong prefix or
 * swapped addresses are one more check that blocks.
 */
export async function checkApiGroups(
  credentials: Credentials | undefined,
  probe: ApiProbe,
  datasetsInUse: ReadonlySet<string>,
  secret: SecretLocation | undefined,
  datasets: readonly DatasetEntry[] = DATASETS,
): Promise<Check[]> {
  const area = 'planning API' as const;
  if (!credentials) return [cannotTell({ area, name: 'planning API groups', blocks: true, detail: 'not asked: the secret holds no usable credentials (see above)' })];
  let answer: Awaited<ReturnType<ApiProbe>>;
  try {
    answer = await probe(credentials);
  } catch (error) {
    return [cannotTell({ area, name: 'planning API groups', blocks: true, detail: errorMessage(error) })];
  }
  const checks = answer.groups.map((group) => {
    const served = datasets.filter((d) => d.apiGroup === group.group).map((d) => d.name);
    const read = served.filter((name) => datasetsInUse.has(name));
    const fields = { area, name: `API group ${group.title}`, blocks: read.length > 0 };
    if (group.ok) return ok({ ...fields, detail: group.detail });
    const used = fields.blocks ? `a report reads ${read.join(' and ')}` : served.length > 0 ? `no report reads ${served.join(' or ')}` : 'no dataset reads it';
    return notOk({ ...fields, detail: `${group.detail}: ${group.reason ?? 'no answer'} (${used})`, fix: `npm run discover -- --secret-id ${secret?.shellRef ?? '<secret>'} (what this key may read, and why not)` });
  });
  if (answer.addressHint !== undefined) {
    checks.push(notOk({ area, name: 'planning API addresses', blocks: true, detail: answer.addressHint, fix: 'correct the credentials document, then put-secret-value again (see the secret check)' }));
  }
  return checks;
}
