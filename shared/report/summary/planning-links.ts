/**
 * Links from "Needs attention" into the planning tool. Its reporting API names no web address for a
 * risk, an OKR objective or a PI objective, so a definition may give one template per kind
 * (`links.riskUrl`, `links.okrUrl`, `links.piObjectiveUrl`) with the item's fields as placeholders;
 * without one the item links only to its row in the workbook.
 */
export const LINK_PLACEHOLDERS = {
  riskUrl: ['id', 'key', 'registerId'],
  okrUrl: ['id', 'key'],
  piObjectiveUrl: ['id', 'boardId'],
} as const;

export type PlanningLinkKind = keyof typeof LINK_PLACEHOLDERS;
export type PlanningLinkTemplates = Partial<Record<PlanningLinkKind, string>>;

/**
 * Why a template cannot be used (for the definition's validation), or undefined when it can: an
 * http(s) address whose placeholders are all known for its kind, with at least one of them.
 */
export function templateProblem(kind: PlanningLinkKind, template: string): string | undefined {
  const known: readonly string[] = LINK_PLACEHOLDERS[kind];
  if (!/^https?:\/\//.test(template)) return 'must be an http(s) URL';
  const used = [...template.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]!);
  const unknown = used.filter((p) => !known.includes(p));
  if (unknown.length > 0) return `knows the placeholders ${known.map((p) => `{${p}}`).join(', ')}, not {${unknown.join('}, {')}}`;
  if (used.length === 0) return `must contain one of ${known.map((p) => `{${p}}`).join(', ')} to tell items apart`;
  return undefined;
}

/** The item's address in the planning tool, or undefined without a template or a placeholder's value. */
export function planningLink(template: string | undefined, fields: Readonly<Record<string, string | undefined>>): string | undefined {
  if (template === undefined) return undefined;
  let missing = false;
  const url = template.replace(/\{([^{}]*)\}/g, (_, name: string) => {
    const value = fields[name];
    if (value === undefined || value === '') missing = true;
    return encodeURIComponent(value ?? '');
  });
  return missing ? undefined : url;
}
