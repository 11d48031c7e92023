import { windowAt, type CallingWindow } from '../../src/modules/campaigns/campaign.window';

/** The calling window, read in the campaign's time zone (pure: no database). */
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] as CallingWindow['allowed_days'];
const office: CallingWindow = { timezone: 'America/Sao_Paulo', allowed_days: WEEKDAYS, allowed_hours_start_time: '09:00', allowed_hours_end_time: '18:00' };
const at = (iso: string) => new Date(iso);

describe('a day window (São Paulo, UTC-3, Monday to Friday 09:00-18:00)', () => {
  it('is open inside its hours and says when it closes', () => {
    // Monday 2026-11-23 12:00 in São Paulo.
    expect(windowAt(office, at('2026-11-23T15:00:00Z'))).toEqual({ open: true, closesAt: at('2026-11-23T21:00:00Z') });
  });

  it('opens at the start, not a minute before; closes at the end, not a minute after', () => {
    expect(windowAt(office, at('2026-11-23T11:59:00Z'))).toEqual({ open: false, opensAt: at('2026-11-23T12:00:00Z') });
    expect(windowAt(office, at('2026-11-23T12:00:00Z')).open).toBe(true);
    expect(windowAt(office, at('2026-11-23T20:59:59Z')).open).toBe(true);
    expect(windowAt(office, at('2026-11-23T21:00:00Z'))).toEqual({ open: false, opensAt: at('2026-11-24T12:00:00Z') });
  });

  it('skips the days not allowed: Friday evening opens on Monday', () => {
    expect(windowAt(office, at('2026-11-27T22:00:00Z'))).toEqual({ open: false, opensAt: at('2026-11-30T12:00:00Z') });
  });

  it('reads the day in the campaign’s zone, not in UTC', () => {
    // Saturday 01:00 UTC is still Friday 22:00 in São Paulo: a Friday-night window is open.
    const night: CallingWindow = { ...office, allowed_days: ['friday'], allowed_hours_start_time: '20:00', allowed_hours_end_time: '23:00' };
    expect(windowAt(night, at('2026-11-28T01:00:00Z')).open).toBe(true);
  });
});

describe('a window across midnight (Friday 22:00-06:00)', () => {
  const night: CallingWindow = { timezone: 'America/Sao_Paulo', allowed_days: ['friday'], allowed_hours_start_time: '22:00', allowed_hours_end_time: '06:00' };

  it('belongs to the day it starts on: open early on Saturday, closed early on Friday', () => {
    expect(windowAt(night, at('2026-11-28T06:00:00Z'))).toEqual({ open: true, closesAt: at('2026-11-28T09:00:00Z') });
    expect(windowAt(night, at('2026-11-27T06:00:00Z'))).toEqual({ open: false, opensAt: at('2026-11-28T01:00:00Z') });
  });

  it('after it closes, opens again next Friday', () => {
    expect(windowAt(night, at('2026-11-28T09:00:00Z'))).toEqual({ open: false, opensAt: at('2026-12-05T01:00:00Z') });
  });
});

describe('edges', () => {
  it('equal start and end mean the whole day', () => {
    const always: CallingWindow = { ...office, allowed_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'], allowed_hours_start_time: '00:00', allowed_hours_end_time: '00:00' };
    for (const iso of ['2026-11-23T03:00:00Z', '2026-11-29T02:59:59Z', '2026-11-25T15:30:00Z']) expect(windowAt(always, at(iso)).open).toBe(true);
  });

  it('keeps its wall-clock hours on the days the clocks change (New York)', () => {
    const early: CallingWindow = { timezone: 'America/New_York', allowed_days: ['sunday'], allowed_hours_start_time: '00:00', allowed_hours_end_time: '06:00' };
    // 2026-11-01: 02:00 EDT becomes 01:00 EST; the window still ends at 06:00 local (EST, UTC-5).
    expect(windowAt(early, at('2026-11-01T05:00:00Z'))).toEqual({ open: true, closesAt: at('2026-11-01T11:00:00Z') });
  });

  it('opens at the first minute after a start that falls in a daylight-saving gap', () => {
    const gap: CallingWindow = { timezone: 'America/New_York', allowed_days: ['sunday'], allowed_hours_start_time: '02:30', allowed_hours_end_time: '05:00' };
    // 2026-03-08: 02:00 EST jumps to 03:00 EDT; 02:30 does not exist that night.
    const state = windowAt(gap, at('2026-03-08T05:00:00Z'));
    expect(state.open).toBe(false);
    const opensAt = (state as { opensAt: Date }).opensAt;
    expect(opensAt.getTime()).toBeGreaterThanOrEqual(at('2026-03-08T07:00:00Z').getTime());
    expect(opensAt.getTime()).toBeLessThan(at('2026-03-08T09:00:00Z').getTime());
  });

  it('never opens without an allowed day', () => {
    expect(windowAt({ ...office, allowed_days: [] }, at('2026-11-23T15:00:00Z'))).toEqual({ open: false, opensAt: null });
  });
});
