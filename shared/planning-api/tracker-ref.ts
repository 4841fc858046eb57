/**
 * Links of PI Objectives items to the external work tracker. Boards connect to one of two tracker
 * families, as the API's documentation describes them: the first gives `extAId` and a ready link `extAURL`; the second
 * gives `extBId` and a key `extBKey`, and the link must be built from the key with the tracker's
 * browse address, which the API does not return. The report definition supplies that address as a
 * template such as `https://tracker.example.com/browse/{key}`.
 */

export type TrackerFamily = 'extA' | 'extB' | 'unknown';

export interface TrackerRef {
  family: TrackerFamily;
  /** The item's id in the tracker (extAId or extBId). */
  id: string | undefined;
  /** The tracker key (extBKey); the first family has none. */
  key: string | undefined;
  /** A browsable http(s) link, or undefined when none can be given. */
  url: string | undefined;
}

export interface TrackerItemFields {
  extAId?: string | null | undefined;
  extAURL?: string | null | undefined;
  extBId?: string | null | undefined;
  extBKey?: string | null | undefined;
}

export interface TrackerRefOptions {
  /** Browse address of the second tracker family with `{key}` where the item key goes. */
  extBBrowseUrl?: string | undefined;
}

/**
 * The tracker reference of an item: its family, id or key, and a link when one is known (given by the
 * API, or built from the key with `options.extBBrowseUrl`); only http(s) links are kept.
 */
export function trackerRef(item: TrackerItemFields, options: TrackerRefOptions = {}): TrackerRef {
  const extAId = present(item.extAId);
  const extAURL = present(item.extAURL);
  if (extAId !== undefined || extAURL !== undefined) {
    return { family: 'extA', id: extAId, key: undefined, url: safeHttpUrl(extAURL) };
  }
  const extBId = present(item.extBId);
  const extBKey = present(item.extBKey);
  if (extBId !== undefined || extBKey !== undefined) {
    const template = options.extBBrowseUrl;
    let url: string | undefined;
    if (template !== undefined && extBKey !== undefined) {
      if (!template.includes('{key}')) {
        throw new RangeError(`extBBrowseUrl must contain {key}, got "${template}"`);
      }
      url = safeHttpUrl(template.split('{key}').join(encodeURIComponent(extBKey)));
    }
    return { family: 'extB', id: extBId, key: extBKey, url };
  }
  return { family: 'unknown', id: undefined, key: undefined, url: undefined };
}

function present(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * Only http(s) links are passed on: the link ends up as a spreadsheet hyperlink, and a `javascript:`
 * or `file:` address from a tampered record must not become clickable.
 */
function safeHttpUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? value : undefined;
  } catch {
    return undefined;
  }
}
