import type { Clock } from '../core/clock';
import { errorMessage } from '../core/errors';
import type { Log } from '../core/logger';
import { escapeHtml } from '../email/email-content';
import type { Ledger } from '../ledger/ledger';
import { linkTokenFailure, type LinkVerificationKeys } from '../links/link-token';
import { verifyUnsubscribeToken, type UnsubscribeClaims } from '../links/unsubscribe-token';
import { HTML_HEADERS, PAGE_STYLE, type PageResponse } from './run-page';
import { SuppressionList, type Suppression } from '../messages/recipients/suppressions';

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
  readonly now: Clock;
  readonly log: Log;
}

export async function unsubscribePage(token: string, deps: UnsubscribeDependencies): Promise<PageResponse> {
  const claims = await admit(token, deps);
  if (!claims) return refused();
  return recorded(deps, 'read', async () => pageFor(claims, token, await suppressionOf(claims, deps)));
}

export async function unsubscribeAction(token: string, body: string | undefined, deps: UnsubscribeDependencies): Promise<PageResponse> {
  const claims = await admit(token, deps);
  if (!claims) return refused();
  const form = new URLSearchParams(body ?? '');
  const list = new SuppressionList(deps.ledger);
  if (form.get('List-Unsubscribe') === 'One-Click') {
    // Answered 200 only once it is recorded: a mail provider retries a 5xx, never a 200.
    return recorded(deps, 'one-click', async () => {
      await list.suppress(claims.report, claims.to, 'unsubscribed', deps.now());
      deps.log.info('recipient unsubscribed (one-click)', { report: claims.report });
      return { statusCode: 200, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, body: 'Unsubscribed.\n' };
    });
  }
  if (form.get('action') === 'resubscribe') {
    return recorded(deps, 'page', async () => {
      // The reader's token lifts the reader's own unsubscribe only: a bounce or a complaint is the owners' to lift.
      const lifted = await list.lift(claims.report, claims.to, deps.now(), 'unsubscribed');
      if (lifted === 'kept') return pageFor(claims, token, await suppressionOf(claims, deps));
      deps.log.info('recipient subscribed again', { report: claims.report });
      return confirmPage(claims, token, `You get “${claims.report}” again from its next run.`);
    });
  }
  if (form.get('action') === 'unsubscribe') {
    return recorded(deps, 'page', async () => {
      await list.suppress(claims.report, claims.to, 'unsubscribed', deps.now());
      deps.log.info('recipient unsubscribed (page)', { report: claims.report });
      return pageFor(claims, token, await suppressionOf(claims, deps));
    });
  }
  return { statusCode: 400, headers: HTML_HEADERS, body: page('Nothing was changed', '<p>This request does not say what to do. Open the link from the e-mail again.</p>') };
}

/** Seconds a mail provider (or a person) is asked to wait before trying a change the ledger could not take. */
const RETRY_AFTER_SECONDS = 60;

/**
 * Runs a read or change of the suppressions; when the ledger fails, answers 503 with Retry-After
 * (plain text to a mail client's one-click POST, a page to a person), so nothing is answered as done
 * that was not recorded, and the sender tries again.
 */
async function recorded(deps: UnsubscribeDependencies, what: 'read' | 'one-click' | 'page', act: () => Promise<PageResponse>): Promise<PageResponse> {
  try {
    return await act();
  } catch (error) {
    deps.log.error('unsubscribe not recorded', { what, error: errorMessage(error) });
    const headers = { 'retry-after': String(RETRY_AFTER_SECONDS), 'cache-control': 'no-store' };
    if (what === 'one-click') return { statusCode: 503, headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' }, body: 'Not recorded yet: please try again.\n' };
    return { statusCode: 503, headers: { ...HTML_HEADERS, ...headers }, body: page('Please try again', '<p>This could not be saved just now. Nothing was changed; try the button again in a minute.</p>') };
  }
}

async function suppressionOf(claims: UnsubscribeClaims, deps: UnsubscribeDependencies): Promise<Suppression | undefined> {
  return (await new SuppressionList(deps.ledger).of(claims.report, [claims.to]))[claims.to.toLowerCase()];
}

/** The page for the address's state: e-mailed (a button to stop), unsubscribed (a button to undo), or stopped by a bounce or complaint (no button). */
function pageFor(claims: UnsubscribeClaims, token: string, suppression: Suppression | undefined): PageResponse {
  if (suppression === undefined) return confirmPage(claims, token);
  return suppression.reason === 'unsubscribed' ? pausedPage(claims, token) : stoppedPage(claims, suppression.reason);
}

async function admit(token: string, deps: UnsubscribeDependencies): Promise<UnsubscribeClaims | undefined> {
  try {
    return verifyUnsubscribeToken(token, await deps.linkKeys(), deps.now());
  } catch (error) {
    // The token is the credential: log why it was refused, never the token.
    deps.log.warn('unsubscribe link refused', { reason: linkTokenFailure(error) ?? errorMessage(error) });
    return undefined;
  }
}

function confirmPage(claims: UnsubscribeClaims, token: string, note?: string): PageResponse {
  const report = escapeHtml(claims.report);
  return {
    statusCode: 200,
    headers: HTML_HEADERS,
    body: page(
      `E-mails of ${report}`,
      [
        ...(note ? [`<p role="status">${escapeHtml(note)}</p>`] : []),
        `<p><strong>${escapeHtml(claims.to)}</strong> gets the report “${report}” by e-mail.</p>`,
        form(token, 'unsubscribe', 'Stop e-mailing me this report'),
      ].join('\n'),
    ),
  };
}

function pausedPage(claims: UnsubscribeClaims, token: string): PageResponse {
  const report = escapeHtml(claims.report);
  return {
    statusCode: 200,
    headers: HTML_HEADERS,
    body: page(
      'Unsubscribed',
      [
        `<p role="status"><strong>${escapeHtml(claims.to)}</strong> no longer gets the report “${report}” by e-mail. The report's owners see this in its list of recipients.</p>`,
        form(token, 'resubscribe', 'E-mail me this report again'),
      ].join('\n'),
    ),
  };
}

/** Mail to the address bounced for good or was marked as spam: only the report's owners e-mail it again. */
function stoppedPage(claims: UnsubscribeClaims, reason: 'bounced' | 'complained'): PageResponse {
  const why = reason === 'bounced' ? 'mail to it bounced (the receiving server refused it for good)' : 'a message was marked as spam from it';
  return {
    statusCode: 200,
    headers: HTML_HEADERS,
    body: page(
      'Not e-mailed',
      `<p role="status"><strong>${escapeHtml(claims.to)}</strong> is not sent the report “${escapeHtml(claims.report)}” because ${why}. Ask the report's owners to e-mail it again.</p>`,
    ),
  };
}

function refused(): PageResponse {
  return { statusCode: 403, headers: HTML_HEADERS, body: page('This link does not work', '<p>The link is not valid or has expired. Ask the report\'s owner to change its recipients.</p>') };
}

function form(token: string, action: 'unsubscribe' | 'resubscribe', label: string): string {
  return `<form method="post" action="${encodeURIComponent(token)}"><input type="hidden" name="action" value="${action}"><button class="button" id="${action}" type="submit">${label}</button></form>`;
}

function page(heading: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${heading}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main id="unsubscribe">
<h1>${heading}</h1>
${content}
</main>
</body>
</html>
`;
}
