import { sendAsset } from '../docs/static';
import type { Config } from '../config';
import { TALK_STYLE, talkAssets } from '../docs/talk';
import { setPageHeaders } from './page-headers';
import { isRead, type HttpRoute } from './route';

/**
 * `GET /talk` and its assets: talk to an assistant from a browser on a web call (src/docs/talk.ts).
 * The page is framed by no one (page-headers.ts); customers embed the element's script instead.
 */
export function talkRoute(config: Pick<Config, 'publicUrl'>): HttpRoute {
  return {
    match: ({ method, path }) => (path === '/talk' || path.startsWith('/talk/')) && isRead(method),
    label: ({ path }) => (path === '/talk' ? '/talk' : '/talk/*'),
    handle: ({ req, res, path }) => {
      setPageHeaders(res, 'talk', config, [TALK_STYLE]);
      // Public code, loaded by customers' sites (<vozgate-talk>): module scripts and worklets are fetched in CORS mode.
      if (path !== '/talk') res.setHeader('access-control-allow-origin', '*');
      return sendAsset(req, res, talkAssets[path]);
    },
  };
}
