/**
 * Text rules shared by the renderers: formula neutralisation (CSV), and what a worksheet cell can
 * hold (xlsx). See docs/formats.md.
 */

/**
 * Spreadsheets evaluate a cell whose text starts with one of these, even when it came from a CSV
 * file (CSV injection: `=cmd|' /C calc'!A0`, `@SUM(...)`, `-2+3`). The apostrophes in front are
 * part of the pattern so that the rule is a bijection (see neutraliseFormula).
 */
const NEEDS_NEUTRALISING = /^'*[=+\-@\t\r]/;
const NEUTRALISED = /^'+[=+\-@\t\r]/;

/**
 * Prefixes text that a spreadsheet would evaluate with one apostrophe, which Excel and LibreOffice
 * show as text and do not evaluate. Text that already starts with apostrophes before such a
 * character gets one more, so `restoreFormula` can undo it exactly: `=1` → `'=1`, `'=1` → `''=1`.
 */
export function neutraliseFormula(text: string): string {
  return NEEDS_NEUTRALISING.test(text) ? `'${text}` : text;
}

/** The exact inverse of neutraliseFormula, for machines reading the CSV files. */
export function restoreFormula(text: string): string {
  return NEUTRALISED.test(text) ? text.slice(1) : text;
}

/** Excel's limit on the characters (UTF-16 code units, as Excel's LEN counts them) of one cell. */
export const EXCEL_CELL_MAX_CHARS = 32_767;

/**
 * Characters XML 1.0 does not allow (C0 controls except TAB/LF/CR, U+FFFE, U+FFFF) and lone
 * surrogates, which have no UTF-8 encoding. A worksheet with any of them is refused by Excel as
 * corrupt. DEL (U+007F) is legal XML but exceljs drops it anyway, so it is removed here as well to
 * keep "what we write" equal to "what is read back".
 */
const XML_FORBIDDEN =
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const XML_FORBIDDEN_ALL = new RegExp(XML_FORBIDDEN.source, 'g');

/** Removes the characters a worksheet cannot hold (see XML_FORBIDDEN). */
export function removeXmlForbidden(text: string): string {
  // The test-first path matters: almost all text is clean, and replace() always allocates.
  return XML_FORBIDDEN.test(text) ? text.replace(XML_FORBIDDEN_ALL, '') : text;
}

const CR = /\r\n?/g;

/**
 * Text as a worksheet cell stores it: line breaks as LF (an XML parser turns a raw CR into LF
 * anyway, and Excel breaks lines on LF), forbidden characters removed, and cut to Excel's cell
 * limit with a marker that says how long the full text is and where to find it.
 */
export function worksheetText(text: string): string {
  let result = text.includes('\r') ? text.replace(CR, '\n') : text;
  result = removeXmlForbidden(result);
  return result.length > EXCEL_CELL_MAX_CHARS ? truncateForExcel(result) : result;
}

/** Exported for tests; worksheetText applies it when needed. */
export function truncateForExcel(text: string): string {
  if (text.length <= EXCEL_CELL_MAX_CHARS) return text;
  const marker = `… [truncated: ${text.length.toLocaleString('en-US')} characters in full, see the CSV]`;
  let cut = EXCEL_CELL_MAX_CHARS - marker.length;
  // Never split a surrogate pair: half of one is a lone surrogate, which XML forbids.
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return text.slice(0, cut) + marker;
}
