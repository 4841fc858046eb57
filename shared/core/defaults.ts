/**
 * Defaults that more than one door (command line, Lambdas, stack) relies on, in one place so they
 * cannot drift apart. docs/benchmarks.md records how the concurrency was chosen.
 */

/** Planning API requests in flight across one export (one limiter shared by every dataset). */
export const DEFAULT_API_CONCURRENCY = 8;

/**
 * Planning API requests per second one tenant's runs make together, in the stack (the export function's
 * API_RATE_PER_SECOND). The API publishes no rate limit (docs/planning-api.md); this is the rate the fleet
 * benchmark's tenants allow (docs/benchmarks.md, "Fleet: Monday 07:00"), and an operator whose tenant allows
 * more raises it (docs/deploy.md, "Capacity"). The command line paces only with the variable set.
 */
export const DEFAULT_API_RATE_PER_SECOND = 20;

/**
 * The share of `MaxSendRate` the pace keeps to. Pacing at the very rate leaves no room: a send that
 * leaves up to a moment after its own (what the paced mailer allows) or reaches SES a little later than
 * it left can put one message more in a second. Nine tenths leave room for it: a second then holds at
 * most the moments of one second plus that one, 0.9 × the rate + 1, within the rate from 10 a second up
 * (a production account starts at 14). The fleet bench at 14 a second throttled 8.6 % of its sends
 * at the very rate on a loaded machine (docs/benchmarks.md, "Fleet: Monday 07:00").
 */
export const MAIL_PACE_SHARE = 0.9;

/** One planning API request may take this long before it is abandoned and retried. */
export const DEFAULT_API_TIMEOUT_MS = 30_000;

/** How long a secret value is reused without asking Secrets Manager again. */
export const DEFAULT_SECRET_MAX_AGE_SECONDS = 300;
/**
 * How long a warm Lambda reuses a report definition it read from the definitions bucket: an upload
 * reaches the next run within a minute, and a report run every minute costs one GET a minute.
 */
export const DEFAULT_DEFINITIONS_MAX_AGE_SECONDS = 60;

/** A run link reuses an export of its report that finished less than this many minutes ago. */
export const DEFAULT_RUN_LINK_REUSE_MINUTES = 5;

/** Exports one run link may start per hour (joining or reusing one does not count). */
export const DEFAULT_RUN_LINK_STARTS_PER_HOUR = 6;

/**
 * A queued or running export whose status has not changed for this long is taken for dead: the
 * export function's longest timeout (15 minutes) plus a margin. Progress writes keep a live one fresh.
 */
export const RUN_LINK_STALE_MINUTES = 20;
/**
 * Largest planning API response read (bytes). Far above any page the API documents (50 records), so
 * only a broken or hostile answer reaches it; it is enforced while the body streams in.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * Board items asked for per request by an export. The items operation has no total, so each board's
 * pages are a chain of requests one after the other: at the API's default of 50 a board of 10,000
 * features is 201 round trips, at 1,000 it is 11, and the client's per-request cost shrinks with them
 * (docs/benchmarks.md). The API documents no maximum; a server that caps it silently sends shorter
 * pages, which the client follows, and one that refuses it with 400 gets the API's own 50 (see the
 * client's API_BOARD_ITEMS_PAGE_SIZE).
 */
export const DEFAULT_BOARD_ITEMS_PAGE_SIZE = 1_000;

/**
 * Pages with records one planning API list (one operation on one register, board or theme) may take
 * before it is taken for endless: 500,000 records at 50 a page, far past any real register or board,
 * while a server whose list never ends is stopped in minutes, not when memory runs out.
 */
export const DEFAULT_MAX_LIST_PAGES = 10_000;

/**
 * Bytes of answers one planning API list may take: a board of 100,000 features with their stories is
 * a few hundred MiB; past this, a list is taken for endless (see DEFAULT_MAX_LIST_PAGES).
 */
export const DEFAULT_MAX_LIST_BYTES = 512 * 1024 * 1024;

/**
 * What a Lambda keeps back from its remaining time for reporting a failure (status, event, e-mail)
 * when it sets the export's deadline: without it the run would be killed mid-way and report nothing.
 */
export const DEFAULT_DEADLINE_MARGIN_MS = 30_000;

/**
 * Rows of a report's last run above which a scheduled run fans out: 938,000 rows took 266 s at the
 * planning API's pace (50 items a page, 150 ms a request), 2.05 million 1,057 s, past Lambda's 900 s.
 * At 600,000 the single path keeps a margin of about three times.
 */
export const DEFAULT_FAN_OUT_ROWS = 600_000;
