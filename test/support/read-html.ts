import { DomUtils, parseDocument } from 'htmlparser2';

/** A page as a reader meets it: its declared language, its title, and the words it shows (markup, script and style left out). */
export interface ReadPage {
  readonly lang: string | undefined;
  readonly title: string;
  readonly text: string;
  /** The text of the element with this id ('' when there is none). */
  byId(id: string): string;
  /** Every attribute value a reader may hear or see (`aria-label`, `title`). */
  readonly labels: readonly string[];
}

/** Parses an HTML page (htmlparser2, as a browser would tokenise it) into what a reader reads. */
export function readHtml(html: string): ReadPage {
  const document = parseDocument(html, { decodeEntities: true });
  const root = DomUtils.findOne((e) => e.name === 'html', document.children);
  const shown = DomUtils.findOne((e) => e.name === 'body', document.children);
  // Each text node apart, so a label and its value in two cells do not run together.
  const visible = (node: NonNullable<typeof shown>) =>
    DomUtils.filter((n) => DomUtils.isText(n) && !insideHidden(n), node.children, true).map((n) => DomUtils.textContent(n)).join(' ');
  const title = DomUtils.findOne((e) => e.name === 'title', document.children);
  const labelled = DomUtils.findAll((e) => e.attribs['aria-label'] !== undefined || e.attribs.title !== undefined, document.children);
  return {
    lang: root?.attribs.lang,
    title: title ? DomUtils.textContent(title).trim() : '',
    text: shown ? squeeze(visible(shown)) : '',
    byId: (id) => {
      const element = DomUtils.getElementById(id, document.children);
      return element ? squeeze(DomUtils.textContent(element)) : '';
    },
    labels: labelled.flatMap((e) => [e.attribs['aria-label'], e.attribs.title].filter((v): v is string => v !== undefined)),
  };
}

/** Whether a node is inside a script or style element (their text is not read). */
function insideHidden(node: { parent: unknown }): boolean {
  for (let p = node.parent as { name?: string; parent: unknown } | null; p; p = p.parent as typeof p) if (p.name === 'script' || p.name === 'style') return true;
  return false;
}

const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim();
