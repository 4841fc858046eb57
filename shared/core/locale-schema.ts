import * as z from 'zod';
import { canonicalLocale, DEFAULT_LOCALE, localeProblem } from './format';

/**
 * A BCP 47 language tag a definition names (the report's `locale`, a recipient's, a chat channel's),
 * checked as Intl takes it and written canonically (`de-de` → `de-DE`). `maxLength`: the definition's
 * limit on short names; `leftOut`: what leaving it out means.
 */
export function localeTagSchema(maxLength: number, leftOut = `for ${DEFAULT_LOCALE}`) {
  return z
    .string()
    .max(maxLength, `must be at most ${maxLength} characters`)
    .superRefine((tag, ctx) => {
      const problem = localeProblem(tag);
      if (problem !== undefined) {
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(tag)} ${problem}: give a BCP 47 tag such as en-GB, de-DE or fr-FR, or leave locale out ${leftOut}` });
      }
    })
    .transform(canonicalLocale);
}
