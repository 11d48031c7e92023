import type { TestAccount, TestApp } from './app';

/**
 * Campaigns for the dialer's tests: an account, an outbound assistant and a campaign open all
 * day, and leads at numbers that play a chosen outcome on the simulator (0001 busy, 0002 no
 * answer, 0004 voicemail, anything else a person who talks).
 */
export interface DialerSetup {
  account: TestAccount;
  assistant: number;
  campaign: number;
}

export const ALL_DAY = {
  allowed_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
  allowed_hours_start_time: '00:00',
  allowed_hours_end_time: '00:00',
};

export type Outcome = 'human' | 'busy' | 'no-answer' | 'machine';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads until `done` holds, or fails with what it last read. */
export async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await sleep(20);
  }
}

export function dialerKit(appOf: () => TestApp) {
  let numbers = 0;
  const app = () => appOf();

  /** A number of its own that plays `outcome`. */
  const phone = (outcome: Outcome): string =>
    `+55119${String(1000 + numbers++)}${{ human: '7000', busy: '0001', 'no-answer': '0002', machine: '0004' }[outcome]}`;

  async function setup(settings: Record<string, unknown> = {}, options: { balance?: string; assistant?: Record<string, unknown> } = {}): Promise<DialerSetup> {
    const account = await app().account({ balance: options.balance ?? '100' });
    const assistant = await app().outboundAssistant(account, options.assistant);
    const res = await app().request('POST', '/api/user/campaigns', {
      token: account.token,
      body: { name: 'Discador', assistant_id: assistant, retry_interval: 1, ...ALL_DAY, ...settings },
    });
    if (res.status !== 201) throw new Error(`campaign: ${res.status} ${JSON.stringify(res.body)}`);
    return { account, assistant, campaign: res.body.data.id };
  }

  async function addLead(s: DialerSetup, phoneNumber: string, extra: Record<string, unknown> = {}): Promise<number> {
    const res = await app().request('POST', '/api/user/lead', { token: s.account.token, body: { phone_number: phoneNumber, campaign_id: s.campaign, ...extra } });
    if (res.status !== 200) throw new Error(`lead: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data.id;
  }

  const setStatus = (s: DialerSetup, action: 'start' | 'stop') =>
    app().request('POST', '/api/user/campaigns/update-status', { token: s.account.token, body: { campaign_id: s.campaign, action } });

  const getCampaign = async (s: DialerSetup) => (await app().request('GET', `/api/user/campaigns/${s.campaign}`, { token: s.account.token })).body;

  const finished = (s: DialerSetup, timeoutMs?: number) => until('campaign completed', () => getCampaign(s), (c) => c.status === 'completed', timeoutMs);

  const leadsOf = (s: DialerSetup) =>
    app().sql<{ id: number; phone_number: string; status: string; attempts: number }>(
      'select id, phone_number, status, attempts from leads where campaign_id = $1 order by id',
      [s.campaign],
    );

  const callsOf = (s: DialerSetup) =>
    app().sql<{ id: number; lead_id: number; attempt: number; client_phone_number: string; assistant_phone_number: string; status: string; input_variables: any }>(
      'select id, lead_id, attempt, client_phone_number, assistant_phone_number, status, input_variables from calls where campaign_id = $1 order by id',
      [s.campaign],
    );

  /** Samples the calls in flight matching `where` until stopped; answers the largest number seen. */
  function watchInFlight(where: { campaign: number } | { account: number }) {
    const [column, id] = 'campaign' in where ? ['campaign_id', where.campaign] : ['account_id', where.account];
    let max = 0;
    let running = true;
    const loop = (async () => {
      while (running) {
        const [{ n }] = await app().sql(`select count(*)::int as n from calls where ${column} = $1 and finished_at is null`, [id]);
        max = Math.max(max, n);
        await sleep(2);
      }
    })();
    return async () => {
      running = false;
      await loop;
      return max;
    };
  }

  return { phone, setup, addLead, setStatus, getCampaign, finished, leadsOf, callsOf, watchInFlight };
}
