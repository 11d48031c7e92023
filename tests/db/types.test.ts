import { IsoTimestampType, SpecTimestampType } from '../../src/db/types';

describe('timestamp column types', () => {
  const spec = new SpecTimestampType();
  const iso = new IsoTimestampType();

  it.each([
    ['2026-11-21 04:29:00+00', '2026-11-21 04:29:00'],
    ['2026-11-21 04:29:00.987+00', '2026-11-21 04:29:00'],
    ['2026-11-21 01:29:00-03', '2026-11-21 04:29:00'],
    ['2026-11-21 06:29:00+02:00', '2026-11-21 04:29:00'],
    // As PostgreSQL's to_json writes a timestamptz (src/db/read-only.ts, jsonRowOf).
    ['2026-11-21T04:29:00.123456+00:00', '2026-11-21 04:29:00'],
  ])('reads %s from the database as the spec text %s', (stored, shown) => {
    expect(spec.convertToJSValue(stored)).toBe(shown);
  });

  // Read by hand or through Date, the answers are the same.
  it.each([
    '2026-11-21 04:29:00+00',
    '2026-11-21 04:29:00.1+00',
    '2026-11-21 04:29:00.12+00',
    '2026-11-21 04:29:00.999+00',
    '2026-11-21 04:29:00.999999+00',
    '2026-11-21 23:59:59.9995+00',
    '0999-01-01 00:00:00+00',
  ])('reads the UTC text %s as a Date would', (stored) => {
    const date = new Date(`${stored.replace(' ', 'T')}:00`);
    expect(iso.convertToJSValue(stored)).toBe(date.toISOString());
    expect(spec.convertToJSValue(stored)).toBe(date.toISOString().slice(0, 19).replace('T', ' '));
  });

  // As to_json writes them.
  it.each([
    '2026-11-21T04:29:00+00:00',
    '2026-11-21T04:29:00.1+00:00',
    '2026-11-21T04:29:00.999999+00:00',
    '2026-11-21T23:59:59.9995+00:00',
  ])('reads the JSON text %s as a Date would', (stored) => {
    const date = new Date(stored);
    expect(iso.convertToJSValue(stored)).toBe(date.toISOString());
    expect(spec.convertToJSValue(stored)).toBe(date.toISOString().slice(0, 19).replace('T', ' '));
  });

  it('reads dates and nulls', () => {
    expect(spec.convertToJSValue(new Date('2026-11-21T04:29:00.500Z'))).toBe('2026-11-21 04:29:00');
    expect(spec.convertToJSValue(null)).toBeNull();
    expect(iso.convertToJSValue('2026-11-21 04:29:00.1+00')).toBe('2026-11-21T04:29:00.100Z');
  });

  it('refuses text that is not a timestamp', () => {
    expect(() => spec.convertToJSValue('yesterday')).toThrow(TypeError);
  });
});
