import { REFUSAL_MESSAGE, startHttpStub, type HttpStub } from './http-stub';

export interface SsmStub extends HttpStub {
  /** Parameters by name (String values). */
  readonly parameters: Map<string, string>;
  /** While true, every request is refused (AccessDeniedException, with a message that quotes ARNs). */
  refuse: boolean;
}

/** SSM's GetParameter in its own protocol (JSON 1.1, the operation in X-Amz-Target). */
export async function startSsmStub(): Promise<SsmStub> {
  const parameters = new Map<string, string>();
  const stub = await startHttpStub((request) => {
    const reply = (status: number, body: unknown) => ({ status, headers: { 'content-type': 'application/x-amz-json-1.1' }, body: JSON.stringify(body) });
    if (state.refuse) return reply(400, { __type: 'AccessDeniedException', message: REFUSAL_MESSAGE });
    if (request.headers['x-amz-target'] !== 'AmazonSSM.GetParameter') return reply(400, { __type: 'InvalidAction', message: 'unsupported' });
    const name = (JSON.parse(request.body) as { Name: string }).Name;
    const value = parameters.get(name);
    if (value === undefined) return reply(400, { __type: 'ParameterNotFound', message: '' });
    return reply(200, { Parameter: { Name: name, Type: 'String', Value: value, Version: 1, DataType: 'text' } });
  });
  const state: SsmStub = Object.assign(stub, { parameters, refuse: false });
  return state;
}
