import { describe, expect, it } from 'vitest';
import { decodeBody } from '../../../shared/planning-api/transport/http-transport';

/** decodeBody reads a response body exactly as `response.text()` would. */
describe('decodeBody', () => {
  const asText = (bytes: Uint8Array) => new Response(bytes).text();
  const cases: [string, Uint8Array][] = [
    ['empty', new Uint8Array()],
    ['ASCII JSON', new TextEncoder().encode('{"data":[{"id":1}]}')],
    ['non-ASCII', new TextEncoder().encode('{"title":"Zürich – 日本語 😀"}')],
    ['a byte-order mark', new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"data":[]}')])],
    ['invalid UTF-8', new Uint8Array([0x7b, 0xff, 0xfe, 0xc3, 0x7d])],
    ['a BOM alone', new Uint8Array([0xef, 0xbb, 0xbf])],
  ];
  for (const [name, bytes] of cases) {
    it(`decodes ${name} like response.text()`, async () => {
      const copy = bytes.slice();
      expect(decodeBody(copy.buffer)).toBe(await asText(bytes));
    });
  }
});
