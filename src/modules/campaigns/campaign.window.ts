import { DateTime } from 'luxon';
import type { Campaign } from './campaign.entity';
import { WEEKDAYS } from './campaign.rules';

export type CallingWindow = Pick<Campaign, 'timezone' | 'allowed_days' | 'allowed_hours_start_time' | 'allowed_hours_end_time'>;

export type WindowState = { open: true; closesAt: Date } | { open: false; opensAt: Date | null };

function minutesOf(hhmm: string): number {
  const [hours, minutes] = hhmm.split(':').map(Number);
  return hours * 60 + minutes;
}

/**
 * Whether a campaign may dial at `at`, read in its time zone: on an allowed day, from
 * `allowed_hours_start_time` to `allowed_hours_end_time`. An end before the start spans
 * midnight, and the night belongs to the day it started on (a Friday 22:00-06:00 window
 * is open early on Saturday); equal times mean the whole day. Answers when an open window
 * closes, or when a closed one next opens (null when no day is allowed). A start that falls
 * in a daylight-saving gap opens at the first minute after it.
 */
export function windowAt(window: CallingWindow, at: Date): WindowState {
  const now = DateTime.fromJSDate(at, { zone: window.timezone });
  const start = minutesOf(window.allowed_hours_start_time);
  const end = minutesOf(window.allowed_hours_end_time);
  // Yesterday's window may still be open after midnight; the next opening is at most a week away.
  for (let offset = -1; offset <= 7; offset++) {
    const day = now.startOf('day').plus({ days: offset });
    if (!window.allowed_days.includes(WEEKDAYS[day.weekday - 1])) continue;
    const opens = day.set({ hour: Math.floor(start / 60), minute: start % 60 });
    // Wall-clock times: a window keeps its hours on the days the clocks change.
    const closes = (end > start ? day : day.plus({ days: 1 })).set({ hour: Math.floor(end / 60), minute: end % 60 });
    if (now >= opens && now < closes) return { open: true, closesAt: closes.toJSDate() };
    if (opens > now) return { open: false, opensAt: opens.toJSDate() };
  }
  return { open: false, opensAt: null };
}
