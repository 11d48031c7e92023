import { applyCallEvent } from '../../src/modules/calls/call.lifecycle';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/** Ending a call in flight through the API, on the simulator (no worker runs: the call stays where the test puts it). */
let app: TestApp;
let me: TestAccount;
let assistant: number;

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account({ balance: '10' });
  assistant = await app.outboundAssistant(me);
});
afterAll(() => app?.close());

const start = async (phone: string) => (await app.request('POST', '/api/user/make_call', { token: me.token, body: { phone_number: phone, assistant_id: assistant } })).body.call_id as number;

it('ends a call not yet answered as failed, and refuses to end it twice', async () => {
  const id = await start('+5511987656001');
  const res = await app.request('POST', `/api/user/calls/${id}/hangup`, { token: me.token });
  expect(res).toMatchObject({ status: 200, body: { message: 'Call ending', data: { id, status: 'failed' } } });
  const [event] = await app.sql(`select detail from call_events where call_id = $1 and status = 'failed'`, [id]);
  expect(event.detail.reason).toBe('hung up through the API before it was answered');
  // Its reservation is given back, and nothing is charged.
  expect((await app.sql(`select kind from ledger_entries where reference = $1 order by id`, [`call:${id}`])).map((r) => r.kind)).toEqual(['call_reservation', 'call_reservation_release']);
  const again = await app.request('POST', `/api/user/calls/${id}/hangup`, { token: me.token });
  expect(again).toMatchObject({ status: 409, body: { message: 'A chamada já terminou.', code: 'CONFLICT' } });
  expect((await app.request('POST', '/api/user/calls/987654/hangup', { token: me.token })).status).toBe(404);
});

it('ends an answered call as ended, with its duration and its cost, over GraphQL too', async () => {
  const id = await start('+5511987656002');
  await app.orm.em.fork().transactional((tx) => applyCallEvent(tx, app.runtime.lifecycle, id, { type: 'answered', answeredBy: 'human' }));
  const res = await app.graphql('mutation($id: Int!) { hangupCall(id: $id) { id status transcript total_cost } }', { id }, me.token);
  expect(res.body.data.hangupCall).toMatchObject({ id, status: 'ended', transcript: 'Sistema: Chamada encerrada pela API.' });
  expect(res.body.data.hangupCall.total_cost).toBeGreaterThan(0);
});
