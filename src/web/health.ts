import type { MikroORM } from '@mikro-orm/postgresql';
import { sendJson } from '../http';
import type { HttpRoute } from './route';

/** GET /healthz (the process answers) and /readyz (it takes traffic: its database answers, and it is not stopping). */
export function healthRoutes(orm: Pick<MikroORM, 'isConnected'>, stopping: () => boolean): HttpRoute[] {
  return [
    { match: ({ path }) => path === '/healthz', label: '/healthz', handle: ({ res }) => sendJson(res, 200, { status: 'ok' }) },
    {
      match: ({ path }) => path === '/readyz',
      label: '/readyz',
      async handle({ res }) {
        // A process that stops takes no more traffic, though its database answers.
        const ready = !stopping() && (await orm.isConnected().catch(() => false));
        sendJson(res, ready ? 200 : 503, { status: ready ? 'ok' : 'unavailable' });
      },
    },
  ];
}
