import { describe, expect, it } from 'vitest';
import { attachmentDisposition } from '../../../shared/storage/content-disposition';
import { assertValidMetadata, isValidKey, normalisePrefix } from '../../../shared/storage/storage-keys';
import { StorageError } from '../../../shared/core/errors';

describe('attachmentDisposition', () => {
  it('gives an ASCII fallback and an RFC 5987 UTF-8 name', () => {
    expect(attachmentDisposition('acme-weekly.xlsx')).toBe(
      `attachment; filename="acme-weekly.xlsx"; filename*=UTF-8''acme-weekly.xlsx`,
    );
    expect(attachmentDisposition('Müller (Q2) *final*.csv')).toBe(
      `attachment; filename="M_ller (Q2) *final*.csv"; filename*=UTF-8''M%C3%BCller%20%28Q2%29%20%2Afinal%2A.csv`,
    );
  });

  it('cannot break out of the quoted string or carry a path', () => {
    expect(attachmentDisposition('a"; filename=evil.exe.csv')).toBe(
      `attachment; filename="a_; filename=evil.exe.csv"; filename*=UTF-8''a%22%3B%20filename%3Devil.exe.csv`,
    );
    expect(attachmentDisposition('dir\\name.csv')).toBe(`attachment; filename="name.csv"; filename*=UTF-8''name.csv`);
    expect(attachmentDisposition('../../etc/passwd')).toBe(`attachment; filename="passwd"; filename*=UTF-8''passwd`);
    expect(attachmentDisposition('line\r\nbreak.csv')).toBe(
      `attachment; filename="line__break.csv"; filename*=UTF-8''line%0D%0Abreak.csv`,
    );
    expect(attachmentDisposition('dir/')).toContain('filename="download"');
  });
});

describe('storage keys', () => {
  it('isValidKey accepts relative keys and refuses escapes', () => {
    expect(isValidKey('acme/dt=2024-05-06/run=1/risks.csv')).toBe(true);
    expect(isValidKey('a b/ü.csv')).toBe(true);
    for (const bad of ['', '/a', 'a/../b', '..', 'a/./b', 'a//b', 'a/', 'a\\b', 'C:x', 'a\u0000b', 'x'.repeat(1025)]) {
      expect(isValidKey(bad)).toBe(false);
    }
  });

  it('normalisePrefix trims slashes and validates', () => {
    expect(normalisePrefix(undefined)).toBe('');
    expect(normalisePrefix('/exports/')).toBe('exports');
    expect(normalisePrefix('a/b')).toBe('a/b');
    expect(() => normalisePrefix('a/../b')).toThrow(StorageError);
  });

  it('assertValidMetadata limits names, characters and size', () => {
    expect(() => assertValidMetadata('k', { report: 'acme', 'run-id': 'r1' })).not.toThrow();
    expect(() => assertValidMetadata('k', { 'x_y': 'a' })).toThrow(StorageError);
    expect(() => assertValidMetadata('k', { a: 'line\nbreak' })).toThrow(StorageError);
    expect(() => assertValidMetadata('k', { a: 'x'.repeat(2048) })).toThrow(/at most 2048/);
  });
});
