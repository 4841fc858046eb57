import type { Messages } from './messages';

/**
 * Why a run was not compared with an earlier one, in the words `changes.csv` and the manifest keep
 * (English, for programs: they are data there), each with the message a reader reads it by. A note not
 * listed here (an earlier run's snapshot that could not be read again, with its error) is shown as written.
 */
export const NOT_COMPARED = {
  first: { text: 'This is the first run of this report, so there is nothing to compare with yet.', message: 'changes.note.first' },
  unreadable: { text: 'The previous run could not be read (latest.json is not readable), so there is nothing to compare with this time.', message: 'changes.note.unreadable' },
  invalid: { text: 'The previous run could not be read (latest.json is not valid), so there is nothing to compare with this time.', message: 'changes.note.invalid' },
  untracked: { text: 'This run was exported before changes were tracked.', message: 'changes.note.untracked' },
} as const;

/** A run's "not compared" note in the reader's words. */
export function notComparedText(note: string, messages: Messages): string {
  const known = Object.values(NOT_COMPARED).find((n) => n.text === note);
  return known ? messages.t(known.message) : note;
}
