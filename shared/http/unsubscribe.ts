import type { Clock } from '../core/clock';
import { errorMessage } from '../core/errors';
import type { Log } from '../core/logger';
import { escapeHtml } from '../email/email-content';
import type { Ledger } from '../ledger/ledger';
import { linkTokenFailure, type LinkVerificationKeys } from '../links/link-token';
import { verifyUnsubscribeToken, type UnsubscribeClaims } from '../links/unsubscribe-token';
import { HTML_HEADERS, PAGE_STYLE, type PageResponse } from './run-page';
import { SuppressionList, type Suppression } from '../messages/recipients/suppressions';
import { lookupReport, type DefinitionCatalog } from '../definitions/catalog';
import { messagesFor, type MessageId, type Messages } from '../core/i18n/messages';
import { pageLocale } from './page-language';
import type { PageReader } from './run-link';

/**
 * The e-mail's unsubscribe link (`/unsubscribe/{token}`, docs/delivery.md):
 * - `POST` with `List-Unsubscribe=One-Click` is the mail client's one-click unsubscribe (RFC 8058):
 *   it pauses that recipient for that report at once and answers plainly;
 * - `GET` is a person who clicked the footer link: a page that says what the button does, and a
 *   button (a POST) that does it. A GET changes nothing: mail scanners fetch every link;
 * - the page's `POST` pauses (`action=unsubscribe`) or e-mails the address again (`action=resubscribe`),
 *   and answers a page saying which, with the button that undoes it. The token lifts only the
 *   reader's own unsubscribe: an address stopped by a bounce or a complaint (the token travels in
 *   every forwarded copy) stays stopped until the owners lift it (`reports resubscribe`);
 * - nothing is answered as done before the ledger took it: a change it could not take is answered
 *   503 with Retry-After, which mail providers retry.
 */
export interface UnsubscribeDependencies {
  readonly ledger: Ledger;
  readonly linkKeys: () => Promise<LinkVerificationKeys>;
  readonly clock: Clock;
  readonly log: Log;
  /** The configured reports: a page speaks its report's `locale` when the token names none; without, the browser's language. */
  readonly definitions?: DefinitionCatalog | undefined;
}

export async function unsubscribePage(token: string, deps: UnsubscribeDependencies, reader: PageReader = {}): Promise<PageResponse> {
  const claims = await admit(token, deps);
  const words = await wordsFor(claims, deps, reader);
  if (!claims) return refused(words);
  return recorded(deps, 'read', words, async () => pageFor(claims, token, await suppressionOf(claims, deps), words));
}

export async function unsubscribeAction(token: string, body: string | undefined, deps: UnsubscribeDependencies, reader: PageReader = {}): Promise<PageResponse> {
  const claims = await admit(token, deps);
  const words = await wordsFor(claims, deps, reader);
  if (!claims) return refused(words);
  const form = new URLSearchParams(body ?? '');
  const list = new SuppressionList(deps.ledger);
  if (form.get('List-Unsubscribe') === 'One-Click') {
    // Answered 200 only once it is recorded: a mail provider retries a 5xx, never a 200.
    return recorded(deps, 'one-click', words, async () => {
      await list.suppress(claims.report, claims.to, 'unsubscribed', deps.clock());
      deps.log.info('recipient unsubscribed (one-click)', { report: claims.report });
      return { statusCode: 200, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, body: 'Unsubscribed.\n' };
    });
  }
  if (form.get('action') === 'resubscribe') {
    return recorded(deps, 'page', words, async () => {
      // The reader's token lifts the reader's own unsubscribe only: a bounce or a complaint is the owners' to lift.
      const lifted = await list.lift(claims.report, claims.to, deps.clock(), 'unsubscribed');
      if (lifted === 'kept') return pageFor(claims, token, await suppressionOf(claims, deps), words);
      deps.log.info('recipient subscribed again', { report: claims.report });
      return confirmPage(claims, token, words, words.t('unsubscribe.again', { report: claims.report }));
    });
  }
  if (form.get('action') === 'unsubscribe') {
    return recorded(deps, 'page', words, async () => {
      await list.suppress(claims.report, claims.to, 'unsubscribed', deps.clock());
      deps.log.info('recipient unsubscribed (page)', { report: claims.report });
      return pageFor(claims, token, await suppressionOf(claims, deps), words);
    });
  }
  return { statusCode: 400, headers: HTML_HEADERS, body: page(words, words.t('unsubscribe.nothingChangedHeading'), `<p>${escapeHtml(words.t('unsubscribe.nothingChanged'))}</p>`) };
}

/**
 * The pages' words: the recipient's language when the token carries it, else the report's, else the
 * browser's (page-language.ts). A report that cannot be read just now costs the page its language, not its answer.
 */
async function wordsFor(claims: UnsubscribeClaims | undefined, deps: UnsubscribeDependencies, reader: PageReader): Promise<Messages> {
  let known = claims?.lang;
  if (known === undefined && claims && deps.definitions) {
    const definition = await lookupReport(deps.definitions, claims.report).catch(() => undefined);
    const locale = typeof definition === 'object' && definition !== null ? (definition as Readonly<Record<string, unknown>>).locale : undefined;
    known = typeof locale === 'string' ? locale : undefined;
  }
  return messagesFor(pageLocale(known, reader.acceptLanguage));
}

/** Seconds a mail provider (or a person) is asked to wait before trying a change the ledger could not take. */
const RETRY_AFTER_SECONDS = 60;

/**
 * Runs a read or change of the suppressions; when the ledger fails, answers 503 with Retry-After
 * (plain text to a mail client's one-click POST, a page to a person), so nothing is answered as done
 * that was not recorded, and the sender tries again.
 */
async function recorded(deps: UnsubscribeDependencies, what: 'read' | 'one-click' | 'page', words: Messages, act: () => Promise<PageResponse>): Promise<PageResponse> {
  try {
    return await act();
  } catch (error) {
    deps.log.error('unsubscribe not recorded', { what, error: errorMessage(error) });
    const headers = { 'retry-after': String(RETRY_AFTER_SECONDS), 'cache-control': 'no-store' };
    if (what === 'one-click') return { statusCode: 503, headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' }, body: 'Not recorded yet: please try again.\n' };
    return { statusCode: 503, headers: { ...HTML_HEADERS, ...headers }, body: page(words, words.t('unsubscribe.tryAgainHeading'), `<p>${escapeHtml(words.t('unsubscribe.tryAgain'))}</p>`) };
  }
}

async function suppressionOf(claims: UnsubscribeClaims, deps: UnsubscribeDependencies): Promise<Suppression | undefined> {
  return (await new SuppressionList(deps.ledger).of(claims.report, [claims.to]))[claims.to.toLowerCase()];
}

/** The page for the address's state: e-mailed (a button to stop), unsubscribed (a button to undo), or stopped by a bounce or complaint (no button). */
function pageFor(claims: UnsubscribeClaims, token: string, suppression: Suppression | undefined, words: Messages): PageResponse {
  if (suppression === undefined) return confirmPage(claims, token, words);
  return suppression.reason === 'unsubscribed' ? pausedPage(claims, token, words) : stoppedPage(claims, suppression.reason, words);
}

async function admit(token: string, deps: UnsubscribeDependencies): Promise<UnsubscribeClaims | undefined> {
  try {
    return verifyUnsubscribeToken(token, await deps.linkKeys(), deps.clock());
  } catch (error) {
    // The token is the credential: log why it was refused, never the token.
    deps.log.warn('unsubscribe link refused', { reason: linkTokenFailure(error) ?? errorMessage(error) });
    return undefined;
  }
}

/** A message with the recipient's address (bold) and the report's name filled in, the words escaped. */
function aboutAddress(words: Messages, id: MessageId, claims: UnsubscribeClaims): string {
  return escapeHtml(words.t(id, { address: '\u0001', report: claims.report })).replace('\u0001', `<strong>${escapeHtml(claims.to)}</strong>`);
}

function confirmPage(claims: UnsubscribeClaims, token: string, words: Messages, note?: string): PageResponse {
  return {
    statusCode: 200,
    headers: HTML_HEADERS,
    body: page(
      words,
      words.t('unsubscribe.emailsOf', { report: claims.report }),
      [
        ...(note ? [`<p role="status">${escapeHtml(note)}</p>`] : []),
        `<p>${aboutAddress(words, 'unsubscribe.gets', claims)}</p>`,
        form(token, 'unsubscribe', words.t('unsubscribe.stop')),
      ].join('\n'),
    ),
  };
}

function pausedPage(claims: UnsubscribeClaims, token: string, words: Messages): PageResponse {
  return {
    statusCode: 200,
    headers: HTML_HEADERS,
    body: page(
      words,
      words.t('unsubscribe.pausedHeading'),
      [`<p role="status">${aboutAddress(words, 'unsubscribe.paused', claims)}</p>`, form(token, 'resubscribe', words.t('unsubscribe.resume'))].join('\n'),
    ),
  };
}

/** Mail to the address bounced for good or was marked as spam: only the report's owners e-mail it again. */
function stoppedPage(claims: UnsubscribeClaims, reason: 'bounced' | 'complained', words: Messages): PageResponse {
  return {
    statusCode: 200,
    headers: HTML_HEADERS,
    body: page(words, words.t('unsubscribe.stoppedHeading'), `<p role="status">${aboutAddress(words, reason === 'bounced' ? 'unsubscribe.bounced' : 'unsubscribe.complained', claims)}</p>`),
  };
}

function refused(words: Messages): PageResponse {
  return { statusCode: 403, headers: HTML_HEADERS, body: page(words, words.t('runPage.refusedHeading'), `<p>${escapeHtml(words.t('unsubscribe.refused'))}</p>`) };
}

function form(token: string, action: 'unsubscribe' | 'resubscribe', label: string): string {
  return `<form method="post" action="${encodeURIComponent(token)}"><input type="hidden" name="action" value="${action}"><button class="button" id="${action}" type="submit">${escapeHtml(label)}</button></form>`;
}

/** The page: `heading` is plain text; `<html lang>` the language of its words. */
function page(words: Messages, heading: string, content: string): string {
  const title = escapeHtml(heading);
  return `<!doctype html>
<html lang="${escapeHtml(words.language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main id="unsubscribe">
<h1>${title}</h1>
${content}
</main>
</body>
</html>
`;
}
