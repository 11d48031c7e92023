import { HTML, sendAsset, type Asset } from '../docs/static';
import type { Config } from '../config';
import { TALK_STYLE, talkAssets, talkPage } from '../docs/talk';
import { consoleStylesheets } from './console';
import { setPageHeaders } from './page-headers';
import { isRead, type HttpRoute } from './route';

/**
 * `GET /talk` and its assets: talk to an assistant from a browser on a web call (src/docs/talk.ts).
 * The page is framed by no one (page-headers.ts); customers embed the element's script instead.
 * It wears the console's look: its stylesheets are the built console's (same origin, so the
 * page's policy allows them), found on the first request, as the console's own files are.
 */
export function talkRoute(config: Pick<Config, 'publicUrl' | 'console'>): HttpRoute {
  let page: Asset | null = null;
  return {
    match: ({ method, path }) => (path === '/talk' || path.startsWith('/talk/')) && isRead(method),
    label: ({ path }) => (path === '/talk' ? '/talk' : '/talk/*'),
    handle: ({ req, res, path }) => {
      setPageHeaders(res, 'talk', config, [TALK_STYLE]);
      if (path === '/talk') {
        const stylesheets = config.console ? consoleStylesheets() : [];
        // Kept once it has the console's look; a console not built yet is looked for again next time.
        const made = page ?? { text: talkPage(stylesheets), type: HTML };
        if (stylesheets.length > 0 || !config.console) page = made;
        return sendAsset(req, res, made);
      }
      // Public code, loaded by customers' sites (<vozgate-talk>): module scripts and worklets are fetched in CORS mode.
      res.setHeader('access-control-allow-origin', '*');
      return sendAsset(req, res, talkAssets[path]);
    },
  };
}
