import { createHash } from 'node:crypto';
import { DEFAULT_LOCALE, readerFormat, type ReaderFormat } from '../core/format';
import type { MessageId, MessageValues } from '../core/i18n/messages';
import type { RunFigure, RunNote, RunView } from './run-link';

/**
 * The run page (`GET /run/{token}`) and its status JSON, rendered from a RunView. A GET only shows:
 * the one thing that starts an export is the "Get a fresh copy" form (a POST with the per-page
 * token, run-page-token.ts), which no script submits; it is on the pages of a link with nothing
 * running or reusable (`ready`) and of a failed export. Download links are GETs. The page works
 * without script: while the export runs, a `<noscript>` meta refresh reloads the export's own page
 * (`?export=<id>&download=1`, which never starts another export), and the finished page starts the
 * workbook download the same way. With script, one small static script polls the status JSON and
 * reloads once at the end; it and the style sheet are allowed by their hashes in the CSP, so no
 * other inline script can run. Tokens stay out of Referer headers (`no-referrer`).
 */
export interface PageResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Seconds between reloads of the no-script page, and between polls of the script (ms below). */
export const REFRESH_SECONDS = 3;

export const PAGE_STYLE = `
body{margin:0;font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#fff}
main{max-width:36rem;margin:3rem auto;padding:0 1rem}
h1{font-size:1.5rem;margin:0 0 1rem}
h2{font-size:1.125rem;margin:1.5rem 0 .5rem}
p{margin:0 0 1rem}
progress{width:100%;height:1rem;accent-color:#0b5cad}
ul{list-style:none;padding:0;margin:0 0 1rem}
li{margin:0 0 .5rem}
.button{display:inline-block;padding:.6rem 1rem;border-radius:.3rem;background:#0b5cad;color:#fff;text-decoration:none;font-weight:600}
button.button{border:0;font:inherit;cursor:pointer}
.button.secondary{background:#fff;color:#0b5cad;border:2px solid #0b5cad}
a:focus-visible,.button:focus-visible,h1:focus-visible{outline:3px solid #b35900;outline-offset:3px}
.muted{color:#4a4a4a}
dl.figures{margin:0 0 1.5rem}
dl.figures div{display:flex;flex-wrap:wrap;justify-content:space-between;gap:0 1rem;padding:.2rem 0;border-bottom:1px solid #eef0f2}
dl.figures dt{margin:0;flex:1 1 auto}
dl.figures dd{margin:0 0 0 auto;font-weight:600;text-align:right}
dl.figures dd.delta{font-weight:400;color:#4a4a4a;margin:0;min-width:15rem;text-align:left}
dl.figures div.since{border-bottom:2px solid #d9dee4}
dl.figures div.since dd.delta{font-weight:600;font-size:.875rem}
@media (max-width:32rem){dl.figures dd.delta{flex:1 0 100%;min-width:0;text-align:right;font-size:.875rem}}
.nb{white-space:nowrap}
`.trim();

/*
 * Polls the status JSON and updates the progress text in place; on a final state it loads the
 * export's own page, which the server renders complete (files or "try again"). On the finished page
 * it puts the run link itself back in the address bar (a bookmark then opens the link, never this
 * one export as if it were new) and starts the workbook download once.
 */
const SCRIPT = `
(function(){
var main=document.getElementById('run');if(!main)return;
var state=main.getAttribute('data-state'),status=main.getAttribute('data-status'),page=main.getAttribute('data-page'),locale=main.getAttribute('data-locale')||undefined,of=main.getAttribute('data-of')||'{done} / {total}';
if(state==='done'){var a=document.getElementById('workbook');
if(main.getAttribute('data-link'))history.replaceState(null,'',main.getAttribute('data-link'));
if(a&&main.getAttribute('data-download')==='1'){
window.addEventListener('load',function(){window.location.assign(a.href);});}return;}
if(state!=='running'||!status)return;
function text(id,v){var e=document.getElementById(id);if(e)e.textContent=v;}
function poll(){fetch(status,{cache:'no-store',credentials:'omit'}).then(function(r){return r.json();}).then(function(s){
if(s.state!=='running'){window.location.replace(page+'&download=1');return;}
if(s.progress){var b=document.getElementById('bar');if(b){b.max=Math.max(s.progress.datasetsTotal,1);b.value=s.progress.datasetsDone;}
text('datasets',of.replace('{done}',s.progress.datasetsDone).replace('{total}',s.progress.datasetsTotal));text('rows',s.progress.rows.toLocaleString(locale));}
setTimeout(poll,${REFRESH_SECONDS * 1000});}).catch(function(){setTimeout(poll,${REFRESH_SECONDS * 2000});});}
setTimeout(poll,${REFRESH_SECONDS * 1000});
})();
`.trim();

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The page's CSP: nothing but the hashed script and style, fetches to this origin, no framing. */
export const RUN_PAGE_CSP = [
  "default-src 'none'",
  `script-src ${sha256(SCRIPT)}`,
  `style-src ${sha256(PAGE_STYLE)}`,
  "connect-src 'self'",
  "base-uri 'none'",
  // The fresh-copy form posts to the page's own URL; nowhere else.
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const COMMON_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

export const HTML_HEADERS = { ...COMMON_HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': RUN_PAGE_CSP };
const JSON_HEADERS = {
  ...COMMON_HEADERS,
  'content-type': 'application/json; charset=utf-8',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Status codes of the page: a refused link is 403, a spent start limit 429, the rest 200. */
function statusCodeOf(view: RunView): number {
  return view.state === 'refused' ? 403 : view.state === 'limited' ? 429 : 200;
}

/** The status JSON the page polls: state and progress only; links only once done. */
export function renderRunStatus(view: RunView): PageResponse {
  const body =
    view.state === 'running'
      ? { state: view.state, exportId: view.exportId, progress: view.progress ?? null }
      : view.state === 'done'
        ? { state: view.state, exportId: view.exportId, finishedAt: view.finishedAt, files: view.files }
        : view.state === 'failed'
          ? { state: view.state, exportId: view.exportId, message: 'The export did not finish. Please try again.' }
          : view.state === 'limited'
            ? { state: view.state, retryAfterSeconds: view.retryAfterSeconds }
            : view.state === 'ready'
              ? { state: view.state }
              : { state: view.state, message: 'This link is not valid or has expired.' };
  return { statusCode: statusCodeOf(view), headers: JSON_HEADERS, body: JSON.stringify(body) };
}

/**
 * The "Get a fresh copy" button: a form POST to the page's own URL (`/run/{token}`) with the
 * per-page token. Without a page token (an error page) it is a link that reloads the page instead.
 */
function freshCopyForm(t: string, pageToken: string | undefined, label: string, format: ReaderFormat): string {
  if (pageToken === undefined) return `<p><a class="button" id="retry" href="${t}">${escapeHtml(format.t('runPage.reload'))}</a></p>`;
  return `<form method="post" action="${t}"><input type="hidden" name="page" value="${escapeHtml(pageToken)}"><button class="button" id="start" type="submit" autofocus>${escapeHtml(label)}</button></form>`;
}

export interface RunPageOptions {
  readonly download?: boolean;
  readonly pageToken?: string;
  /** The page's locale when the view names none (a refused link: the browser's language, page-language.ts). */
  readonly locale?: string;
}

/** What differs between the page's states: its heading, content, `<noscript>` refresh and data attributes. */
interface PageParts {
  readonly heading: string;
  readonly content: string;
  readonly refresh?: string | undefined;
  readonly attributes?: string;
}

/**
 * The HTML page. `token` is the run link's token (already verified when the view is not `refused`);
 * every URL on the page is relative to `/run/{token}`, so it works under any stage or domain.
 * `pageToken` goes into the fresh-copy form (ready and failed pages). Every word is in the page's
 * locale (the view's, else `options.locale`, else English), and `<html lang>` says which.
 */
export function renderRunPage(view: RunView, token: string, options: RunPageOptions = {}): PageResponse {
  const locale = (view.state === 'refused' ? undefined : view.locale) ?? options.locale ?? DEFAULT_LOCALE;
  // Dates in the report's zone (only a finished export's page shows one).
  const format = readerFormat(locale, view.state === 'done' ? view.timeZone : 'UTC');
  const parts = pageParts(view, encodeURIComponent(token), options, format);
  const { heading, content, refresh } = parts;
  const meta =
    refresh === undefined
      ? ''
      : `<noscript><meta http-equiv="refresh" content="${escapeHtml(refresh.startsWith('0;') ? refresh : `${REFRESH_SECONDS};url=${refresh}`)}"></noscript>`;
  const body = `<!doctype html>
<html lang="${escapeHtml(format.messages.language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(format.t('runPage.title', { heading }))}</title>
${meta}
<style>${PAGE_STYLE}</style>
</head>
<body>
<main id="run" data-state="${view.state}"${parts.attributes ?? ''}>
<h1 tabindex="-1">${escapeHtml(heading)}</h1>
${content}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
  const headers = view.state === 'limited' ? { ...HTML_HEADERS, 'retry-after': String(view.retryAfterSeconds) } : HTML_HEADERS;
  return { statusCode: statusCodeOf(view), headers, body };
}

/** The heading (plain text), content (HTML) and behaviour of the page for the view's state. */
function pageParts(view: RunView, t: string, options: RunPageOptions, format: ReaderFormat): PageParts {
  const w = (id: MessageId, values?: MessageValues) => escapeHtml(format.t(id, values));
  switch (view.state) {
    case 'refused':
      return { heading: format.t('runPage.refusedHeading'), content: `<p>${w('runPage.refused')}</p>` };
    case 'ready':
      return {
        heading: view.title,
        content: [
          ...(view.gone ? [`<p role="status">${w('runPage.gone')}</p>`] : []),
          `<p>${w('runPage.ready')}</p>`,
          freshCopyForm(t, options.pageToken, format.t('runPage.freshCopy'), format),
        ].join('\n'),
      };
    case 'limited':
      return { heading: view.title, content: `<p role="alert">${w('runPage.limited', { minutes: Math.ceil(view.retryAfterSeconds / 60) })}</p>` };
    case 'running':
      return runningParts(view, t, format);
    case 'done': {
      // The page's address becomes the run link again (script): a bookmark opens the link, not this export.
      const attributes = ` data-page="${t}?export=${view.exportId}" data-link="${t}"${options.download ? ' data-download="1"' : ''}`;
      const workbook = view.files.find((f) => f.primary);
      const refresh = options.download && workbook ? `0;url=${workbook.href}` : undefined;
      return { heading: view.title, content: doneContent(view, workbook, options.download === true, t, options.pageToken, format), refresh, attributes };
    }
    case 'failed':
      return {
        heading: view.title,
        content: [`<p role="alert">${w('runPage.failed')}</p>`, freshCopyForm(t, options.pageToken, format.t('runPage.tryAgain'), format)].join('\n'),
      };
  }
}

/** An export under way: its progress, updated in place by the script (in the page's words: `data-of`, `data-starting`). */
function runningParts(view: Extract<RunView, { state: 'running' }>, t: string, format: ReaderFormat): PageParts {
  const page = `${t}?export=${view.exportId}`;
  const of = format.t('runPage.datasetsOf', { done: '{done}', total: '{total}' });
  // The row count in the page's locale, here and in the script's updates (no dates on this page, so no zone).
  const attributes = ` data-status="${t}/status?export=${view.exportId}" data-page="${page}" data-locale="${escapeHtml(format.locale)}" data-of="${escapeHtml(of)}"`;
  const p = view.progress;
  const done = p?.datasetsDone ?? 0;
  const total = p?.datasetsTotal ?? 0;
  const datasets = `<span id="datasets">${escapeHtml(p ? format.t('runPage.datasetsOf', { done, total }) : format.t('runPage.starting'))}</span>`;
  const rows = `<span id="rows">${format.integer(p?.rows ?? 0)}</span>`;
  return {
    heading: view.title,
    refresh: `${page}&download=1`,
    attributes,
    content: [
      `<p id="message">${escapeHtml(format.t('runPage.running'))}</p>`,
      `<progress id="bar" aria-label="${escapeHtml(format.t('runPage.progressLabel'))}" max="${Math.max(total, 1)}" value="${done}"></progress>`,
      // The message's words escaped, its two spans (our own markup) filled in after.
      `<p role="status" aria-live="polite">${escapeHtml(format.t('runPage.progress', { datasets: '\u0001', rows: '\u0002' })).replace('\u0001', datasets).replace('\u0002', rows)}</p>`,
    ].join('\n'),
  };
}

type DoneView = Extract<RunView, { state: 'done' }>;

/**
 * A finished export: what it is (a fresh copy, or one exported earlier, dated, with the button for
 * a fresh one), its headline figures, then its files with the names they are saved under.
 */
function doneContent(view: DoneView, workbook: DoneView['files'][number] | undefined, download: boolean, t: string, pageToken: string | undefined, format: ReaderFormat): string {
  // Dates and figures as the report's e-mails write them: its locale, its zone.
  const when = format.dateTime(new Date(view.finishedAt));
  const items = view.files.map((f) => {
    // The size never breaks between its number and unit ("125.2 / KiB" on a phone).
    const size = `<span class="nb">${escapeHtml(format.bytes(f.bytes))}</span>`;
    const label = f.primary ? filled(format.t('runPage.downloadWorkbook', { size: '\u0001' }), size) : filled(format.t('runPage.file', { label: f.label, kind: f.kind, size: '\u0001' }), size);
    // An earlier export's page focuses the fresh-copy button instead.
    const attributes = f === workbook ? ` id="workbook" class="button"${view.fresh ? ' autofocus' : ''}` : ' class="button secondary"';
    // The name it is saved under, for the pointer's tooltip (the server sets it on the download).
    return `<li><a${attributes} href="${escapeHtml(f.href)}" title="${escapeHtml(f.name)}">${label}</a></li>`;
  });
  const about = view.fresh
    ? `<p role="status">${escapeHtml(format.t(workbook && download ? 'runPage.freshDownloading' : 'runPage.freshReady'))}</p>`
    : `<p role="status">${escapeHtml(format.t('runPage.earlier', { when }))}</p>`;
  const time = `<time datetime="${escapeHtml(view.finishedAt)}">${escapeHtml(when)}</time>`;
  return [
    about,
    `<p class="muted">${filled(format.t('runPage.exported', { when: '\u0001' }), time)}</p>`,
    figuresList(view.figures, view.changesSince, format),
    ...(view.notes ?? []).map(noteList),
    `<ul aria-label="${escapeHtml(format.t('runPage.files'))}">${items.join('')}</ul>`,
    ...(view.fresh ? [] : [freshCopyForm(t, pageToken, format.t('runPage.freshCopy'), format)]),
  ].join('\n');
}

/** A message's words escaped, with our own markup (`html`) where its placeholder (U+0001) was. */
function filled(message: string, html: string): string {
  return escapeHtml(message).replace('\u0001', html);
}

/** "Needs attention" or "What changed": its heading and a line per item, as the e-mail lists them. */
function noteList(note: RunNote): string {
  const item = (l: RunNote['lines'][number]) => (typeof l === 'string' ? escapeHtml(l) : `<a href="${escapeHtml(l.url)}">${escapeHtml(l.text)}</a>`);
  return `<h2>${escapeHtml(note.heading)}</h2><ul>${note.lines.map((l) => `<li>${item(l)}</li>`).join('')}</ul>`;
}

/**
 * The headline figures, a label and its value per line: on a phone a long value (a PI's phase) goes
 * under its label instead of squeezing it onto four lines, the change since the last run goes
 * under its value (its own `dd`, so a long one does not push the value off its label's line), and
 * a date or number never breaks at its hyphen ("2027-/01-04"): each is kept whole (`.nb`).
 */
function figuresList(figures: readonly RunFigure[], changesSince: string | undefined, format: ReaderFormat): string {
  if (figures.length === 0) return '';
  // Figures of one Summary section under its heading, as the e-mail has them ("Risks", "Risks by ROAM").
  const groups: { heading: string | undefined; figures: RunFigure[] }[] = [];
  for (const f of figures) {
    const last = groups.at(-1);
    if (last && last.heading === f.group) last.figures.push(f);
    else groups.push({ heading: f.group, figures: [f] });
  }
  // The changes' date said once, as the header of their column over the first figures that have one.
  const headed = changesSince === undefined ? -1 : groups.findIndex((g) => g.figures.some((f) => f.delta !== undefined));
  return groups
    .map((group, i) => {
      const rows = group.figures.map(
        (f) => `<div><dt>${escapeHtml(f.label)}</dt><dd>${unbroken(f.value)}</dd>${f.delta ? `<dd class="delta">${unbroken(f.delta)}</dd>` : ''}</div>`,
      );
      if (i === headed) rows.unshift(`<div class="since"><dt></dt><dd class="delta">${unbroken(changesSince ?? '')}</dd></div>`);
      const label = escapeHtml(group.heading ?? format.t('runPage.headlineFigures'));
      return `${group.heading ? `<h2>${label}</h2>` : ''}<dl class="figures" aria-label="${label}">${rows.join('')}</dl>`;
    })
    .join('\n');
}

/** Text with its dates and numbers ("2027-01-04", "27/11/2026", "+3.6") each in a span that does not break. */
function unbroken(text: string): string {
  return text
    .split(/([+−-]?\d(?:[\d\-/.,:]*\d)?(?: ?%)?)/)
    .map((part, i) => (i % 2 === 1 ? `<span class="nb">${escapeHtml(part)}</span>` : escapeHtml(part)))
    .join('');
}
