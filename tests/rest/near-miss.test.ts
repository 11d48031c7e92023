import { closestRoute } from '../../src/rest/route.suggest';
import { routes } from '../../src/rest/routes';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * A path that is not a route answers the documented 404 (`{message, code}`); when it is close to
 * a route (a plural for a singular, a typo), the body also names that route in `hint`.
 */
let app: TestApp;
let me: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
});
afterAll(() => app?.close());

it.each([
  ['GET', '/api/user/assistants/1', 'GET /user/assistant/{id}'],
  ['GET', '/api/user/lead/7', 'GET /user/leads/{id}'],
  ['DELETE', '/api/user/tool/3', 'DELETE /user/tools/{id}'],
  ['GET', '/api/user/campains', 'GET /user/campaigns'],
  ['POST', '/api/user/make-call', 'POST /user/make_call'],
])('%s %s: 404 naming %s', async (method, path, meant) => {
  const res = await app.request(method, path, { token: me.token });
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ message: 'Rota não encontrada.', code: 'NOT_FOUND', hint: `Você quis dizer ${meant}?` });
});

it.each([
  ['GET', '/api/user/nothing-like-it'],
  ['GET', '/api/v1/user/leads/1/x/y'],
  ['GET', '/api/user/foo'],
  ['GET', '/api/'],
])('%s %s: the bare 404, no guess', async (method, path) => {
  const res = await app.request(method, path, { token: me.token });
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ message: 'Rota não encontrada.', code: 'NOT_FOUND' });
});

it('the same method is preferred, and a route itself is its own closest', () => {
  expect(closestRoute('PUT', '/user/assistants/9', routes)).toBe('PUT /user/assistant/{id}');
  for (const route of routes) expect(closestRoute(route.method, route.path.replace(/\{\w+\}/g, '1'), routes)).toBe(`${route.method} ${route.path}`);
});
