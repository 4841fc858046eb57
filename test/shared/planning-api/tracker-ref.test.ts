import { describe, expect, it } from 'vitest';
import { trackerRef } from '../../../shared/planning-api';

const BROWSE = 'https://tracker.example.com/browse/{key}';

describe('trackerRef', () => {
  it('uses the ready link of the first tracker family', () => {
    expect(trackerRef({ extAId: '10042', extAURL: 'https://dev.example.com/wi/10042' }, { extBBrowseUrl: BROWSE })).toEqual({
      family: 'extA',
      id: '10042',
      key: undefined,
      url: 'https://dev.example.com/wi/10042',
    });
  });

  it('builds the link of the second tracker family from its key and the browse template', () => {
    expect(trackerRef({ extBId: '77', extBKey: 'PAY-12' }, { extBBrowseUrl: BROWSE })).toEqual({
      family: 'extB',
      id: '77',
      key: 'PAY-12',
      url: 'https://tracker.example.com/browse/PAY-12',
    });
  });

  it('gives no link for the second family without a template', () => {
    expect(trackerRef({ extBId: '77', extBKey: 'PAY-12' })).toEqual({ family: 'extB', id: '77', key: 'PAY-12', url: undefined });
  });

  it('encodes the key into the template', () => {
    expect(trackerRef({ extBKey: 'A B/1' }, { extBBrowseUrl: BROWSE }).url).toBe('https://tracker.example.com/browse/A%20B%2F1');
  });

  it('reports items with neither family as unknown', () => {
    expect(trackerRef({ extAId: null, extBKey: '' })).toEqual({ family: 'unknown', id: undefined, key: undefined, url: undefined });
  });

  it('drops links that are not http(s)', () => {
    expect(trackerRef({ extAId: '1', extAURL: 'javascript:alert(1)' }).url).toBeUndefined();
    expect(trackerRef({ extAId: '1', extAURL: 'not a url' }).url).toBeUndefined();
  });

  it('rejects a template without {key}', () => {
    expect(() => trackerRef({ extBKey: 'PAY-1' }, { extBBrowseUrl: 'https://tracker.example.com/browse/' })).toThrow(RangeError);
  });
});
