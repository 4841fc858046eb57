import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Step Functions' StartExecution (JSON 1.0 protocol, `X-Amz-Target:
 * AWSStepFunctions.StartExecution`), recording each start; a second start of the same name answers
 * ExecutionAlreadyExists as the service does. The adapter's real SDK client talks to it.
 */
export interface SfnStub {
  readonly endpoint: string;
  readonly starts: { stateMachineArn: string; name: string; input: unknown }[];
  close(): Promise<void>;
}

export async function startSfnStub(): Promise<SfnStub> {
  const starts: SfnStub['starts'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(body));
      if (req.headers['x-amz-target'] !== 'AWSStepFunctions.StartExecution') return reply(400, { __type: 'UnknownOperationException' });
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { stateMachineArn: string; name: string; input: string };
      if (starts.some((s) => s.name === input.name)) return reply(400, { __type: 'ExecutionAlreadyExists', message: `Execution Already Exists: '${input.name}'` });
      starts.push({ stateMachineArn: input.stateMachineArn, name: input.name, input: JSON.parse(input.input) });
      return reply(200, { executionArn: `${input.stateMachineArn.replace(':stateMachine:', ':execution:')}:${input.name}`, startDate: Date.now() / 1000 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    starts,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
