import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lambdaContext } from './lambda-events';

type ApiHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** The routes of the stack's HTTP API (infra/constructs/export-http-api.ts), most specific first. */
const ROUTES: readonly { method: string; pattern: RegExp; routeKey: string; params: readonly string[] }[] = [
  { method: 'GET', pattern: /^\/run\/([^/]+)\/status$/, routeKey: 'GET /run/{token}/status', params: ['token'] },
  { method: 'GET', pattern: /^\/run\/([^/]+)\/download$/, routeKey: 'GET /run/{token}/download', params: ['token'] },
  { method: 'GET', pattern: /^\/run\/([^/]+)$/, routeKey: 'GET /run/{token}', params: ['token'] },
  { method: 'POST', pattern: /^\/run\/([^/]+)$/, routeKey: 'POST /run/{token}', params: ['token'] },
  { method: 'GET', pattern: /^\/links\/([^/]+)$/, routeKey: 'GET /links/{token}', params: ['token'] },
  { method: 'GET', pattern: /^\/unsubscribe\/([^/]+)$/, routeKey: 'GET /unsubscribe/{token}', params: ['token'] },
  { method: 'POST', pattern: /^\/unsubscribe\/([^/]+)$/, routeKey: 'POST /unsubscribe/{token}', params: ['token'] },
  { method: 'GET', pattern: /^\/exports\/([^/]+)$/, routeKey: 'GET /exports/{id}', params: ['id'] },
  { method: 'POST', pattern: /^\/exports$/, routeKey: 'POST /exports', params: [] },
];

/** The route's path parameters, percent-decoded; undefined when one of them does not decode. */
function decodeParameters(names: readonly string[], match: RegExpExecArray): Record<string, string> | undefined {
  try {
    return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]));
  } catch (error) {
    if (error instanceof URIError) return undefined;
    throw error;
  }
}

export interface LocalHttpApi {
  readonly baseUrl: string;
  /** Milliseconds the handler took for each request, by route key (for the measurements in the README). */
  readonly timings: { routeKey: string; ms: number }[];
  close(): Promise<void>;
}

/**
 * API Gateway's HTTP API in front of the export-api handler, on loopback: a request is matched to a
 * route, turned into a payload-format-2.0 event and the handler's result written back, so a real
 * browser can use the stack exactly as it would the deployed one. No authorizer (locally, the IAM
 * routes are open too; their tests use the handler directly). A HEAD request goes to the GET route,
 * so the handler sees what a link scanner's HEAD could do at worst (Node drops the body). A path that does not decode (a malformed percent
 * escape) is a 400, as API Gateway answers it, and never reaches the handler.
 */
export async function startHttpApi(handler: ApiHandler, options: { port?: number } = {}): Promise<LocalHttpApi> {
  const timings: { routeKey: string; ms: number }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        serve();
      } catch {
        // Whatever a request does, the server goes on serving the next one.
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"message":"Internal Server Error"}');
      }
    });
    const serve = () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      const route = ROUTES.find((r) => r.method === method && r.pattern.test(url.pathname));
      if (!route) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
        return;
      }
      const match = route.pattern.exec(url.pathname)!;
      const pathParameters = decodeParameters(route.params, match);
      if (!pathParameters) {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"Bad Request: the path is not valid percent-encoding"}');
        return;
      }
      const query = Object.fromEntries(url.searchParams);
      const body = Buffer.concat(chunks).toString('utf8');
      const event: APIGatewayProxyEventV2 = {
        version: '2.0',
        routeKey: route.routeKey,
        rawPath: url.pathname,
        rawQueryString: url.search.slice(1),
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')])),
        ...(Object.keys(query).length > 0 && { queryStringParameters: query }),
        ...(route.params.length > 0 && { pathParameters }),
        ...(body.length > 0 && { body }),
        isBase64Encoded: false,
        requestContext: {
          accountId: '123456789012',
          apiId: 'local',
          domainName: 'localhost',
          domainPrefix: 'localhost',
          http: { method: req.method ?? 'GET', path: url.pathname, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: req.headers['user-agent'] ?? '' },
          requestId: `local-${Math.random().toString(16).slice(2)}`,
          routeKey: route.routeKey,
          stage: '$default',
          time: new Date().toISOString(),
          timeEpoch: Date.now(),
        },
      };
      const started = process.hrtime.bigint();
      handler(event, lambdaContext('export-api')).then(
        (result) => {
          timings.push({ routeKey: route.routeKey, ms: Number(process.hrtime.bigint() - started) / 1e6 });
          const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)]));
          const payload = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : Buffer.from(result.body ?? '', 'utf8');
          res.writeHead(result.statusCode ?? 200, headers).end(payload);
        },
        () => res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"Internal Server Error"}'),
      );
    };
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    timings,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
