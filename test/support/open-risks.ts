/**
 * Whether a simulated risk counts as open: the tests' own statement of the rule the product keeps in
 * shared/report/summary/vocabulary.ts (isClosedRiskStatus), written out once here rather than imported,
 * so a test computing the expected count of open risks cannot agree with the product by construction.
 */
export function isOpenRiskStatus(status: string): boolean {
  return !/closed|mitigated|resolved|done|cancel|archiv|accepted/i.test(status);
}
