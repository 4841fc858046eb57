import { readerFormat, type ReaderFormat } from './format';
import type { MessageId, Messages } from './i18n/messages';

/**
 * One ReaderFormat whose locale the run can switch: the datasets' figures keep the format they were
 * made with and write their Summary sections when asked, so a run asks them once per reader's
 * language (recipients and chat channels with their own `locale`) for the same figures in each
 * language's words and numbers. Every method reads the locale in use at the time it is called.
 */
export interface SwitchableFormat {
  readonly format: ReaderFormat;
  /** Writes in `locale` from now on (same zone). */
  use(locale: string): void;
}

export function switchableFormat(locale: string, timeZone: string): SwitchableFormat {
  let current = readerFormat(locale, timeZone);
  const messages: Messages = {
    get language() {
      return current.messages.language;
    },
    t: (id, values) => current.messages.t(id, values),
    has: (id): id is MessageId => current.messages.has(id),
  };
  const format: ReaderFormat = {
    get locale() {
      return current.locale;
    },
    messages,
    timeZone,
    t: (id, values) => current.t(id, values),
    bytes: (n) => current.bytes(n),
    integer: (n) => current.integer(n),
    number: (n) => current.number(n),
    percent: (p, decimals) => current.percent(p, decimals),
    percentPoints: (d) => current.percentPoints(d),
    delta: (d) => current.delta(d),
    date: (d) => current.date(d),
    calendarDate: (d) => current.calendarDate(d),
    dateTime: (d) => current.dateTime(d),
    dayMonth: (d) => current.dayMonth(d),
    time: (d) => current.time(d),
    dateRange: (from, to) => current.dateRange(from, to),
  };
  return {
    format,
    use(next) {
      if (next !== current.locale) current = readerFormat(next, timeZone);
    },
  };
}
