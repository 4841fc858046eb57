import * as z from 'zod';

/**
 * One plain e-mail address (no display name, no list): what SES accepts in Destination and what a
 * report definition may name. Kept free of the SES client so the definition can import it.
 * Angle brackets, quotes, commas, semicolons and whitespace are refused, so a value cannot smuggle
 * a second recipient or a header.
 */
export const emailAddress = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .regex(/^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\]+\.[^\s@<>(),;:"[\]\\]+$/, 'must be a plain e-mail address like team@example.com');
