import { REFUSAL_MESSAGE, startHttpStub, type HttpStub } from './http-stub';

/** A stack as the stub holds it. */
export interface StubStack {
  status: string;
  outputs: Record<string, string>;
}

export interface CloudFormationStub extends HttpStub {
  /** Stacks by name; DescribeStacks of any other name answers "does not exist" like CloudFormation. */
  readonly stacks: Map<string, StubStack>;
  /** While true, every request is refused (403 AccessDenied, with a message that quotes ARNs). */
  refuse: boolean;
}

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function errorXml(code: string, message: string): string {
  return `<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${xml(message)}</Message></Error><RequestId>stub</RequestId></ErrorResponse>`;
}

function stackXml(name: string, stack: StubStack): string {
  const outputs = Object.entries(stack.outputs)
    .map(([key, value]) => `<member><OutputKey>${xml(key)}</OutputKey><OutputValue>${xml(value)}</OutputValue></member>`)
    .join('');
  return (
    `<member><StackName>${xml(name)}</StackName><StackId>arn:aws:cloudformation:eu-central-1:123456789012:stack/${xml(name)}/stub</StackId>` +
    `<CreationTime>2026-11-23T07:00:00Z</CreationTime><StackStatus>${xml(stack.status)}</StackStatus><Outputs>${outputs}</Outputs></member>`
  );
}

/**
 * CloudFormation's DescribeStacks in its own protocol (AWS Query: a form-encoded POST, answered in XML),
 * the one operation `npm run preflight` uses.
 */
export async function startCloudFormationStub(): Promise<CloudFormationStub> {
  const stacks = new Map<string, StubStack>();
  const stub = await startHttpStub((request) => {
    const form = new URLSearchParams(request.body);
    const reply = (status: number, body: string) => ({ status, headers: { 'content-type': 'text/xml' }, body });
    if (state.refuse) return reply(403, errorXml('AccessDenied', REFUSAL_MESSAGE));
    if (form.get('Action') !== 'DescribeStacks') return reply(400, errorXml('InvalidAction', `unsupported: ${form.get('Action') ?? ''}`));
    const name = form.get('StackName') ?? '';
    const stack = stacks.get(name);
    if (!stack) return reply(400, errorXml('ValidationError', `Stack with id ${name} does not exist`));
    return reply(
      200,
      `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks>${stackXml(name, stack)}</Stacks></DescribeStacksResult>` +
        '<ResponseMetadata><RequestId>stub</RequestId></ResponseMetadata></DescribeStacksResponse>',
    );
  });
  const state: CloudFormationStub = Object.assign(stub, { stacks, refuse: false });
  return state;
}
