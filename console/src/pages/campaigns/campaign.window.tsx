import type { ConsoleCampaignFieldsFragment } from '../../gql/graphql';

const WEEK = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const short = (day: string) => day.charAt(0).toUpperCase() + day.slice(1, 3);

/** The allowed days as a person writes them: "Every day", "Mon–Fri", "Mon, Wed, Sat–Sun". */
export function formatDays(days: readonly string[]): string {
  const on = WEEK.map((day) => days.includes(day));
  if (on.every(Boolean)) return 'Every day';
  if (!on.some(Boolean)) return 'No day';
  const runs: string[] = [];
  for (let index = 0; index < 7; index++) {
    if (!on[index]) continue;
    let last = index;
    while (last + 1 < 7 && on[last + 1]) last++;
    runs.push(last - index >= 2 ? `${short(WEEK[index])}–${short(WEEK[last])}` : WEEK.slice(index, last + 1).map(short).join(', '));
    index = last;
  }
  return runs.join(', ');
}

/** The hours, equal times being the whole day (the API's rule), an end before the start past midnight. */
export function formatHours(start: string, end: string): string {
  if (start === end) return 'all day';
  return `${start}–${end}${end < start ? ' (next day)' : ''}`;
}

/** The API's "YYYY-MM-DD HH:MM:SS" (UTC) as the campaign's local weekday and time: "Mon 09:00", with the date when over a week away. */
export function formatOpening(utc: string, timezone: string, now = new Date()): string {
  const at = new Date(`${utc.replace(' ', 'T')}Z`);
  if (Number.isNaN(at.getTime())) return utc;
  const far = at.getTime() - now.getTime() > 6 * 24 * 3600 * 1000;
  try {
    return new Intl.DateTimeFormat('en-GB', { timeZone: timezone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', ...(far ? { day: 'numeric', month: 'short' } : {}) })
      .format(at)
      .replace(',', '');
  } catch {
    return utc;
  }
}

type WindowFields = Pick<ConsoleCampaignFieldsFragment, 'status' | 'allowed_days' | 'allowed_hours_start_time' | 'allowed_hours_end_time' | 'timezone' | 'window_open' | 'next_window_at'>;

/**
 * When the campaign may call, in its time zone; while it runs outside that window, that it is
 * closed now and when calls start again (why a running campaign is not dialling).
 */
export function CampaignWindow({ campaign }: { campaign: WindowFields }) {
  const closed = campaign.status === 'running' && !campaign.window_open;
  return (
    <span className="campaign-window" data-window-open={campaign.window_open ? 'true' : 'false'}>
      <span>
        {formatDays(campaign.allowed_days)}, {formatHours(campaign.allowed_hours_start_time, campaign.allowed_hours_end_time)} ({campaign.timezone})
      </span>
      {closed && (
        <span className="window-closed" data-window-closed>
          {campaign.next_window_at ? `Closed now, next calls ${formatOpening(campaign.next_window_at, campaign.timezone)} (${campaign.timezone})` : 'Closed now: no day is allowed'}
        </span>
      )}
    </span>
  );
}
