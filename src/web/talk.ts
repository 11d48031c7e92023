import { sendAsset } from '../docs/static';
import { talkAssets } from '../docs/talk';
import { isRead, type HttpRoute } from './route';

/** `GET /talk` and its assets: talk to an assistant from a browser on a web call (src/docs/talk.ts). */
export const talkRoute: HttpRoute = {
  match: ({ method, path }) => (path === '/talk' || path.startsWith('/talk/')) && isRead(method),
  label: ({ path }) => (path === '/talk' ? '/talk' : '/talk/*'),
  handle: ({ req, res, path }) => {
    // Public code, loaded by customers' sites (<vozgate-talk>): module scripts and worklets are fetched in CORS mode.
    if (path !== '/talk') res.setHeader('access-control-allow-origin', '*');
    return sendAsset(req, res, talkAssets[path]);
  },
};
