import { countRanges, dayAfter, firstOfNextMonth } from '../src/lib/count-ranges';

describe('countRanges', () => {
  it('answers whole months from the monthly counters and the ends from the daily ones', () => {
    expect(countRanges('2026-01-15', '2026-04-10')).toEqual({ months: ['2026-02-01', '2026-04-01'], days: [['2026-01-15', '2026-02-01'], ['2026-04-01', '2026-04-10']] });
    expect(countRanges('2026-01-01', '2026-03-01')).toEqual({ months: ['2026-01-01', '2026-03-01'], days: [] });
    expect(countRanges('2025-12-20', '2026-01-01')).toEqual({ months: null, days: [['2025-12-20', '2026-01-01']] });
    expect(countRanges('2025-11-20', '2026-01-03')).toEqual({ months: ['2025-12-01', '2026-01-01'], days: [['2025-11-20', '2025-12-01'], ['2026-01-01', '2026-01-03']] });
  });

  it('keeps a range inside one month to days, and open ends to months', () => {
    expect(countRanges('2026-03-05', '2026-03-20')).toEqual({ months: null, days: [['2026-03-05', '2026-03-20']] });
    expect(countRanges('2026-03-05', '2026-04-01')).toEqual({ months: null, days: [['2026-03-05', '2026-04-01']] });
    expect(countRanges(null, '2026-03-20')).toEqual({ months: [null, '2026-03-01'], days: [['2026-03-01', '2026-03-20']] });
    expect(countRanges('2026-03-05', null)).toEqual({ months: ['2026-04-01', null], days: [['2026-03-05', '2026-04-01']] });
  });
});

describe('dayAfter and firstOfNextMonth', () => {
  it('cross the ends of months, of years and of February in leap years', () => {
    expect(['2026-03-31', '2026-12-31', '2028-02-28', '2026-02-28', '2026-06-15'].map(dayAfter)).toEqual([
      '2026-04-01',
      '2027-01-01',
      '2028-02-29',
      '2026-03-01',
      '2026-06-16',
    ]);
    expect(['2026-01-01', '2026-11-01', '2026-12-01'].map(firstOfNextMonth)).toEqual(['2026-02-01', '2026-12-01', '2027-01-01']);
  });
});
