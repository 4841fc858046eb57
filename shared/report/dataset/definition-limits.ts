/**
 * The sizes a definition may have, and the selector list every dataset's options use. Apart from
 * definition.ts because the datasets' options (tables/*.ts) are built of them and definition.ts builds
 * its schema from the datasets' entries.
 */
import * as z from 'zod';

/**
 * Sizes a definition may have. A definition is written by people (or sent by a caller of the API,
 * inline) and read by every run, the scheduler sync and the API: without caps, 100,000 registers or a
 * 20 MB selector were stored, and every run paid for them. Far above any real report: a portfolio
 * has hundreds of boards, not thousands.
 */
export const DEFINITION_LIMITS = {
  /** The whole definition (or stored report), as compact JSON, in bytes (UTF-8). */
  bytes: 256 * 1024,
  /** A definition's text before it is parsed: room for indentation around `bytes` of JSON. */
  textBytes: 1024 * 1024,
  /** Entries of one selector list (registers, boards, collections, themes). */
  ids: 1_000,
  /** Characters of one selector entry (an id, a key or a title). */
  idLength: 500,
  /** Recipients of one list (`to`, `cc`, `onFailure`): SES takes at most 50 per message. */
  recipients: 50,
  /** Characters of a link template or address. */
  url: 2_000,
  /** Characters of a custom field's title or a time zone's name. */
  name: 200,
} as const;

/**
 * A whole number with thousands separators, as en-US writes it ("1,000"). Not toLocaleString: the
 * schemas' messages are built when the module loads, and a process's first Intl call costs about
 * 20 ms of every function's cold start.
 */
export const grouped = (n: number): string => String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * A selector: ids, keys or titles of `what` (`'board id or title'`), checked within the limits. Left
 * out, a dataset exports every visible one.
 */
export const idList = (what: string) =>
  z
    .array(
      z
        .string()
        .trim()
        .min(1, `${what} must not be empty strings`)
        .max(DEFINITION_LIMITS.idLength, `a ${what} has at most ${grouped(DEFINITION_LIMITS.idLength)} characters`)
        // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
        .refine((id) => !/[\u0000-\u001f\u007f-\u009f]/.test(id), `${what} must not contain control characters (copy it again)`),
    )
    .min(1, `list at least one ${what}, or leave the selector out to export all visible ones`)
    .max(DEFINITION_LIMITS.ids, `list at most ${grouped(DEFINITION_LIMITS.ids)} entries (${what}); leave the selector out to export all visible ones`)
    .optional();
