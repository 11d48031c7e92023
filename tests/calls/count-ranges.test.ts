import { countRanges, dayAfter, firstOfNextMonth } from '../../src/modules/calls/call.count-ranges';

describe('countRanges', () => {
  it('answers whole months from the monthly counters and the ends from the daily ones', () => {
    expect(countRanges('2026-01-17', '2026-04-10')).toEqual({ months: ['2026-02-01', '2026-04-01'], days: [['2026-01-17', '2026-02-01'], ['2026-04-01', '2026-04-10']], less: [] });
    expect(countRanges('2026-01-01', '2026-03-01')).toEqual({ months: ['2026-01-01', '2026-03-01'], days: [], less: [] });
    expect(countRanges('2025-12-20', '2026-01-01')).toEqual({ months: null, days: [['2025-12-20', '2026-01-01']], less: [] });
    expect(countRanges('2025-11-20', '2026-01-03')).toEqual({ months: ['2025-12-01', '2026-01-01'], days: [['2025-11-20', '2025-12-01'], ['2026-01-01', '2026-01-03']], less: [] });
  });

  it('takes a month in part as the whole month less its days outside the range, when those are fewer', () => {
    // 2 days of January are outside, 29 inside; 5 days of April outside, 25 inside.
    expect(countRanges('2026-01-03', '2026-04-26')).toEqual({
      months: ['2026-01-01', '2026-05-01'],
      days: [],
      less: [
        ['2026-01-01', '2026-01-03'],
        ['2026-04-26', '2026-05-01'],
      ],
    });
    // A range to the end of today: the month, less the days still to come.
    expect(countRanges('2026-01-26', '2026-11-23')).toEqual({ months: ['2026-02-01', '2026-12-01'], days: [['2026-01-26', '2026-02-01']], less: [['2026-11-23', '2026-12-01']] });
    // Equal counts of days keep the days.
    expect(countRanges('2026-04-16', '2026-06-01')).toEqual({ months: ['2026-05-01', '2026-06-01'], days: [['2026-04-16', '2026-05-01']], less: [] });
    expect(countRanges('2026-03-02', null)).toEqual({ months: ['2026-03-01', null], days: [], less: [['2026-03-01', '2026-03-02']] });
  });

  it('keeps a range inside one month to days, and open ends to months', () => {
    expect(countRanges('2026-03-05', '2026-03-20')).toEqual({ months: null, days: [['2026-03-05', '2026-03-20']], less: [] });
    expect(countRanges('2026-03-05', '2026-04-01')).toEqual({ months: null, days: [['2026-03-05', '2026-04-01']], less: [] });
    expect(countRanges(null, '2026-03-10')).toEqual({ months: [null, '2026-03-01'], days: [['2026-03-01', '2026-03-10']], less: [] });
    expect(countRanges('2026-03-25', null)).toEqual({ months: ['2026-04-01', null], days: [['2026-03-25', '2026-04-01']], less: [] });
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
