import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NOT_HTTP } from './retry-cases';

/**
 * Local stand-ins for Slack and Microsoft Teams incoming webhooks: an HTTP server on port 0 that
 * records every POST, checks the payload like the real service would (Block Kit limits; Adaptive
 * Card basics) and answers 400 "invalid_payload" when it breaks them. Responses can be scripted
 * (a status, a Retry-After, never answering, a reset, a malformed answer) to exercise the poster's
 * retries and timeouts.
 */
export type WebhookKind = 'slack' | 'teams';

export interface RecordedPost {
  readonly path: string;
  readonly method: string;
  readonly contentType: string | undefined;
  readonly body: unknown;
  /** The body as it arrived, byte for byte (UTF-8). */
  readonly raw: string;
  /** What the validator found wrong; empty when the payload was accepted. */
  readonly problems: readonly string[];
}

export interface ScriptedAnswer {
  readonly status: number;
  readonly body?: string;
  readonly retryAfter?: string;
  /** The Location header of a redirect (a 301, 302, 307 or 308 `status`). */
  readonly location?: string;
  /** Never answer (the client's timeout must end the request). */
  readonly hang?: boolean;
  /** Close the connection without answering (the client sees a reset: "other side closed"). */
  readonly reset?: boolean;
  /** Answer with bytes that are not HTTP (the client sees a parser error of no transient kind). */
  readonly malformed?: boolean;
}

export interface WebhookRecorder {
  /** `http://127.0.0.1:<port>/<kind>/<path>`: a webhook URL; the path plays the secret part. */
  url(path: string): string;
  readonly posts: RecordedPost[];
  postsTo(path: string): RecordedPost[];
  /** Answers for the next requests, in order; afterwards the service's usual answer. */
  script(...answers: ScriptedAnswer[]): void;
  /** Resolves when `n` posts in total have arrived. */
  waitForPosts(n: number): Promise<void>;
  close(): Promise<void>;
}

export const BLOCK_KIT_LIMITS = { blocks: 50, text: 3000, header: 150, button: 75 } as const;

/** The checks Slack applies that a generated message can break. */
export function slackProblems(payload: unknown): string[] {
  const problems: string[] = [];
  const p = payload as { text?: unknown; blocks?: unknown };
  if (typeof p !== 'object' || p === null) return ['payload is not an object'];
  if (typeof p.text !== 'string' && !Array.isArray(p.blocks)) problems.push('needs text or blocks');
  if (typeof p.text === 'string' && p.text.length > BLOCK_KIT_LIMITS.text) problems.push(`text has ${p.text.length} characters`);
  if (!Array.isArray(p.blocks)) return problems;
  if (p.blocks.length > BLOCK_KIT_LIMITS.blocks) problems.push(`${p.blocks.length} blocks (at most ${BLOCK_KIT_LIMITS.blocks})`);
  p.blocks.forEach((block: Record<string, unknown>, i) => {
    const at = `blocks[${i}]`;
    if (!['header', 'section', 'context', 'actions', 'divider'].includes(String(block.type))) problems.push(`${at}: unknown type ${String(block.type)}`);
    const texts = textObjects(block);
    for (const t of texts) {
      if (!['plain_text', 'mrkdwn'].includes(String(t.type))) problems.push(`${at}: text object of type ${String(t.type)}`);
      if (typeof t.text !== 'string' || t.text.length === 0) problems.push(`${at}: empty text`);
      else if (t.text.length > BLOCK_KIT_LIMITS.text) problems.push(`${at}: text has ${t.text.length} characters`);
    }
    if (block.type === 'header') {
      const t = block.text as { type?: unknown; text?: string };
      if (t.type !== 'plain_text') problems.push(`${at}: header text must be plain_text`);
      if ((t.text?.length ?? 0) > BLOCK_KIT_LIMITS.header) problems.push(`${at}: header over ${BLOCK_KIT_LIMITS.header}`);
    }
    if (block.type === 'actions') {
      const elements = block.elements as { type?: unknown; text?: { text?: string }; url?: unknown; action_id?: unknown }[];
      if (!Array.isArray(elements) || elements.length === 0 || elements.length > 25) problems.push(`${at}: 1 to 25 elements`);
      for (const e of elements ?? []) {
        if (e.type !== 'button') problems.push(`${at}: element ${String(e.type)}`);
        if ((e.text?.text?.length ?? 0) > BLOCK_KIT_LIMITS.button) problems.push(`${at}: button text over ${BLOCK_KIT_LIMITS.button}`);
        if (typeof e.url !== 'string' || !/^https?:\/\//.test(e.url)) problems.push(`${at}: button without a URL`);
      }
      const ids = elements?.map((e) => e.action_id) ?? [];
      if (new Set(ids).size !== ids.length) problems.push(`${at}: action_id repeated`);
    }
  });
  return problems;
}

function textObjects(block: Record<string, unknown>): { type?: unknown; text?: unknown }[] {
  const out: { type?: unknown; text?: unknown }[] = [];
  if (block.text && typeof block.text === 'object') out.push(block.text);
  if (Array.isArray(block.fields)) out.push(...(block.fields as { type?: unknown; text?: unknown }[]));
  if (block.type === 'context' && Array.isArray(block.elements)) out.push(...(block.elements as { type?: unknown; text?: unknown }[]));
  return out;
}

/** Adaptive Card basics Teams checks: a message with an AdaptiveCard attachment, typed elements, OpenUrl actions. */
export function teamsProblems(payload: unknown): string[] {
  const problems: string[] = [];
  const p = payload as { type?: unknown; attachments?: { contentType?: unknown; content?: Record<string, unknown> }[] };
  if (p?.type !== 'message') problems.push('type must be "message"');
  const attachment = Array.isArray(p?.attachments) ? p.attachments[0] : undefined;
  if (!attachment) return [...problems, 'needs one attachment'];
  if (attachment.contentType !== 'application/vnd.microsoft.card.adaptive') problems.push('attachment is not an Adaptive Card');
  const card = attachment.content ?? {};
  if (card.type !== 'AdaptiveCard') problems.push('content.type must be AdaptiveCard');
  if (typeof card.version !== 'string' || !/^1\.\d$/.test(card.version)) problems.push('content.version must be 1.x');
  if (!Array.isArray(card.body) || card.body.length === 0) problems.push('content.body must list elements');
  for (const [i, element] of ((card.body as Record<string, unknown>[] | undefined) ?? []).entries()) {
    if (!['TextBlock', 'FactSet', 'ColumnSet', 'Container'].includes(String(element.type))) problems.push(`body[${i}]: type ${String(element.type)}`);
    if (element.type === 'TextBlock' && (typeof element.text !== 'string' || element.text === '')) problems.push(`body[${i}]: TextBlock without text`);
    if (element.type === 'FactSet') {
      const facts = element.facts as { title?: unknown; value?: unknown }[] | undefined;
      if (!Array.isArray(facts) || facts.some((f) => typeof f.title !== 'string' || typeof f.value !== 'string')) problems.push(`body[${i}]: facts need title and value strings`);
    }
  }
  for (const [i, action] of ((card.actions as Record<string, unknown>[] | undefined) ?? []).entries()) {
    if (action.type !== 'Action.OpenUrl') problems.push(`actions[${i}]: type ${String(action.type)}`);
    if (typeof action.title !== 'string' || typeof action.url !== 'string' || !/^https?:\/\//.test(action.url)) problems.push(`actions[${i}]: needs title and url`);
  }
  return problems;
}

export async function startWebhookRecorder(): Promise<WebhookRecorder> {
  const posts: RecordedPost[] = [];
  const scripted: ScriptedAnswer[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const hanging: ServerResponse[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? '/';
    const kind: WebhookKind | undefined = path.startsWith('/slack/') ? 'slack' : path.startsWith('/teams/') ? 'teams' : undefined;
    let body: unknown;
    let problems: string[];
    const raw = Buffer.concat(chunks).toString('utf8');
    try {
      body = JSON.parse(raw);
      problems = kind === 'slack' ? slackProblems(body) : kind === 'teams' ? teamsProblems(body) : ['unknown webhook path'];
    } catch {
      problems = ['body is not JSON'];
    }
    posts.push({ path, method: req.method ?? 'GET', contentType: req.headers['content-type'], body, raw, problems });
    for (const w of waiters.filter((w) => posts.length >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    const answer = scripted.shift();
    if (answer?.hang) {
      hanging.push(res);
      return;
    }
    if (answer?.reset) {
      res.socket?.destroy();
      return;
    }
    if (answer?.malformed) {
      res.socket?.end(NOT_HTTP);
      return;
    }
    if (answer) {
      res.writeHead(answer.status, {
        'content-type': 'text/plain',
        ...(answer.retryAfter !== undefined && { 'retry-after': answer.retryAfter }),
        ...(answer.location !== undefined && { location: answer.location }),
      });
      res.end(answer.body ?? '');
      return;
    }
    if (problems.length > 0) {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('invalid_payload');
      return;
    }
    // Slack answers 200 "ok"; a Teams workflow accepts with 202 and an empty body.
    res.writeHead(kind === 'teams' ? 202 : 200, { 'content-type': 'text/plain' });
    res.end(kind === 'teams' ? '' : 'ok');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `${base}/${path.replace(/^\/+/, '')}`,
    posts,
    postsTo: (path) => posts.filter((p) => p.path === `/${path.replace(/^\/+/, '')}`),
    script: (...answers) => {
      scripted.push(...answers);
    },
    waitForPosts: (n) => (posts.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
