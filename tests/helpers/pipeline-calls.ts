import type { PipelineVendors } from '../../src/config';
import { OPENING_WAIT_MS } from '../../src/voice/amd/screening';
import { startTestApp, type TestAccount, type TestApp, NO_VENDORS } from './app';
import { Caller } from './caller';
import { until } from './dialer';
import { startFakeDeepgram, type FakeDeepgram } from './fakes/deepgram';
import { startFakeOpenAi, type FakeOpenAi } from './fakes/openai';
import { TwilioMediaClient } from './media';
import { startReceiver, type Receiver } from './receiver';
import { startFakeTwilio, streamParameters, type FakeTwilio } from './twilio';
import { TURNS_COLUMN } from './turns';

/**
 * Outbound calls on the built-in pipeline engine, end to end on real sockets (for
 * tests/voice/pipeline-engine.test.ts and the tests of its vendors): a test app whose calls go
 * through a local Twilio Calls API, its engine's vendors local fakes of Deepgram and of
 * OpenAI's chat completions and speech; each call's media stream opened by a client that
 * speaks Twilio Media Streams and talks like a phone (a frame every 20 ms).
 */
export const DEEPGRAM_KEY = 'dg-test-key-0123456789';
export const OPENAI_KEY = 'sk-test-pipeline-key';

export interface LiveCall {
  id: number;
  sid: string;
  media: TwilioMediaClient;
  caller: Caller;
  /** Media frames vozgate sent, base64. */
  heard(): string[];
}

export const defaultVendors = ({ deepgram, openai }: { deepgram: FakeDeepgram; openai: FakeOpenAi }): PipelineVendors => ({
  ...NO_VENDORS,
  deepgram: { apiKey: DEEPGRAM_KEY, url: deepgram.url },
  openai: { apiKey: OPENAI_KEY, url: openai.url },
});

export class PipelineCalls {
  private seq = 0;

  private constructor(
    readonly app: TestApp,
    readonly twilioFake: FakeTwilio,
    readonly deepgram: FakeDeepgram,
    readonly openai: FakeOpenAi,
    /** Where the account's tool `check_order` (`tool`) is served. */
    readonly tools: Receiver,
    readonly me: TestAccount,
    readonly tool: number,
    /** Every line the app logged. */
    readonly logged: string[],
  ) {}

  /** `vendors`: the engine's vendors given the fakes; Deepgram's and OpenAI's fakes by default. */
  static async start(vendors: (fakes: { deepgram: FakeDeepgram; openai: FakeOpenAi }) => PipelineVendors = defaultVendors): Promise<PipelineCalls> {
    const twilioFake = await startFakeTwilio();
    const deepgram = await startFakeDeepgram(DEEPGRAM_KEY);
    const openai = await startFakeOpenAi(OPENAI_KEY);
    const tools = await startReceiver();
    const logged: string[] = [];
    const log = (message: string, fields?: unknown) => logged.push(`${message} ${JSON.stringify(fields ?? {})}`);
    const app = await startTestApp(
      {
        telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: twilioFake.settings() },
        voice: {
          openai: null,
          pipelineEngineUrl: null,
          pipeline: vendors({ deepgram, openai }),
        },
        allowPrivateNetworkTargets: true,
        maxParallelCalls: 50,
      },
      {
        workers: true,
        logger: {
          access: (line) => log('request', line),
          info: log,
          debug: log,
          warn: log,
          error: (message, error, fields) => log(`${message} ${String(error)}`, fields),
        },
      },
    );
    const me = await app.account({ balance: '50' });
    const created = await app.request('POST', '/api/user/tools', {
      token: me.token,
      body: {
        name: 'check_order',
        description: 'Looks an order up by its number',
        endpoint: `${tools.url}/orders`,
        method: 'POST',
        timeout: 5,
        schema: [{ name: 'order_id', type: 'string', description: 'The order number' }],
      },
    });
    if (created.status !== 201) throw new Error(`the tool was refused: ${JSON.stringify(created.body)}`);
    return new PipelineCalls(app, twilioFake, deepgram, openai, tools, me, created.body.data.id, logged);
  }

  async close(): Promise<void> {
    await this.app?.close();
    await Promise.all([this.deepgram?.close(), this.openai?.close(), this.tools?.close(), this.twilioFake?.close()]);
  }

  /** What each test scripted and was not used is forgotten. */
  reset(): void {
    this.openai.chat.length = 0;
    this.openai.transcriptions.length = 0;
    this.deepgram.transcripts.length = 0;
    this.deepgram.refuse = false;
    this.deepgram.refuseStatus = 401;
  }

  /** An outbound pipeline assistant with the `check_order` tool, speaking first, with `settings` over these. */
  assistantWith(settings: Record<string, unknown>): Promise<number> {
    return this.app.outboundAssistant(this.me, {
      system_prompt: 'Você confirma o pedido {{order}} de {{customer_name}}.',
      initial_message: 'Olá {{customer_name}}, aqui é a Ana.',
      who_speaks_first: 'AI assistant',
      variables: { customer_name: 'cliente' },
      tool_ids: [this.tool],
      record_call: false,
      noise_cancellation: false,
      ...settings,
    });
  }

  async callRow(id: number): Promise<any> {
    return (await this.app.sql(`select status, transcript, ${TURNS_COLUMN}, tool_calls, provider_call_id, hangup_reason from calls where id = $1`, [id]))[0];
  }

  mediaUrl(): string {
    return `${this.app.config.publicUrl.replace(/^http/, 'ws')}/telephony/twilio/media`;
  }

  /** Places a call with the assistant, answers it and opens its media stream; the caller's line is live from then on. */
  async call(assistant: number, variables: Record<string, unknown> = {}): Promise<LiveCall> {
    const { app, twilioFake } = this;
    const phone = `+55119${String(4000 + this.seq++)}7000`;
    const place = () => app.request('POST', '/api/user/make_call', { token: this.me.token, body: { phone_number: phone, assistant_id: assistant, variables } });
    let res = await place();
    // Many calls placed at once for one account queue on its row (its balance and limits); on a
    // loaded machine the last may wait past the database's statement bound and get a 503 with
    // Retry-After, which a client honours, as this one does, twice at most.
    for (let retry = 0; res.status === 503 && retry < 2; retry++) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(Number(res.headers.get('retry-after') ?? 1), 5) * 1000));
      res = await place();
    }
    if (res.status !== 200) throw new Error(`the call was refused: ${JSON.stringify(res.body)}`);
    const id = res.body.call_id as number;
    const { provider_call_id: sid } = await until('placed', () => this.callRow(id), (row) => row.provider_call_id !== null);
    const twiml = new URLSearchParams(twilioFake.posts().find((r) => new URLSearchParams(r.body).get('To') === phone)!.body).get('Twiml')!;
    const parameters = streamParameters(twiml);
    await twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${id}`, { CallSid: sid, CallStatus: 'in-progress' });
    const media = await TwilioMediaClient.connect(this.mediaUrl());
    media.start(parameters, sid);
    const caller = new Caller(media);
    void media.closed.then(() => caller.hangUp());
    return { id, sid, media, caller, heard: () => media.messages.filter((m) => m.event === 'media').map((m) => m.media.payload) };
  }

  /** The call's end: the caller hangs up (Twilio's `stop`) unless vozgate did, and Twilio reports the call completed. */
  async hangUp(live: LiveCall): Promise<void> {
    live.caller.hangUp();
    if (live.media.open) live.media.stop(live.sid);
    live.media.close();
    await live.media.closed;
    await this.twilioFake.request(this.app.config.publicUrl, `/telephony/twilio/status?call=${live.id}`, { CallSid: live.sid, CallStatus: 'completed', CallDuration: '5' });
  }

  /** Whether vozgate asked Twilio to end the call. */
  hungUp(live: LiveCall): boolean {
    return this.twilioFake.posts().some((r) => r.url.endsWith(`/Calls/${live.sid}.json`) && new URLSearchParams(r.body).get('Status') === 'completed');
  }

  /** What TTS was given, in order. */
  speechInputs(): string[] {
    return this.openai.speechRequests.map((r) => r.body.input as string);
  }

  /** Resolves once vozgate has sent the caller no audio for `ms` (the assistant finished speaking). */
  async quiet(live: LiveCall, ms = 300): Promise<void> {
    let count = -1;
    await until('the assistant to finish speaking', async () => {
      const now = live.heard().length;
      const still = now === count;
      count = now;
      await new Promise((resolve) => setTimeout(resolve, ms));
      return still;
    }, Boolean, 30_000);
  }

  /** The call's vendor events (`vendor_retried`, `vendor_switched`), each its status and detail, in order. */
  async vendorEvents(id: number): Promise<Record<string, unknown>[]> {
    const rows = await this.app.sql(`select status, detail from call_events where call_id = $1 and status like 'vendor%' order by id`, [id]);
    return rows.map((row: { status: string; detail: Record<string, unknown> }) => ({ status: row.status, ...row.detail }));
  }
}

/**
 * An outbound call's opening waits for the callee (src/voice/amd/): a callee who talks on from
 * the answer is a mailbox's greeting. The callers of these tests are people who let the line be
 * quiet until then, so what they say answers the assistant.
 */
export const pastTheOpeningWait = () => new Promise((resolve) => setTimeout(resolve, OPENING_WAIT_MS + 300));
