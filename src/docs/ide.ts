import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CSS, HTML, JS, type Asset } from './static';

/**
 * GraphiQL for browsers at `GET /graphql` (Accept: text/html), from the project's own
 * packages (graphiql's browser bundle and React 18's), so that it works offline and behind
 * firewalls. The first tab opens with a comment that says what to do, over the example
 * operations of examples/operations.graphql. Until a token is in the headers editor, the
 * schema is not asked for (it would be a 401): the result pane says where to paste it. Each
 * new Authorization value makes a new fetcher, which GraphiQL introspects with, so Docs,
 * completion and validation follow the token with no manual re-fetch. The value is kept in
 * sessionStorage (the browser tab's session, never localStorage) and starts every new
 * GraphiQL tab. Subscriptions run over the graphql-ws client bundled in graphiql's browser
 * build, and a socket the server closes (4401: a bad token) is shown as an error.
 */
const moduleDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));

function projectFile(relative: string): string | null {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) {
      const file = path.join(dir, relative);
      return existsSync(file) ? file : null;
    }
  }
  return null;
}

const examplesFile = projectFile('examples/operations.graphql');
// The file's own opening comment is for codegen's users; a person here reads WELCOME instead.
const examples = examplesFile ? readFileSync(examplesFile, 'utf8').replace(/^(#[^\n]*\n)+\n*/, '') : '{ me { name balance } }\n';

const WELCOME = `# vozgate's GraphQL API.
#
# 1. Paste your token into the Headers tab below: {"Authorization": "Bearer <token>"}
#    (the first start prints the demo account's; \`npm run cli -- token:create --account ID\` makes one).
#    Docs (the book icon), completion (Ctrl-Space) and error underlines follow at once.
# 2. Put the cursor in an operation and press Ctrl-Enter (or the run button).
#    Subscriptions stream their events into the result pane, e.g.
#    subscription { callUpdated(initial: true, id: 1) { id status } }
#
# The example operations of examples/operations.graphql follow.

`;

/** What the result pane says while there is no token to ask for the schema with. */
export const TOKEN_HINT = 'Paste your token into the Headers tab below: {"Authorization": "Bearer <token>"}; Docs and completion then load.';

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>vozgate GraphQL</title>
  <style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
  <link rel="stylesheet" href="/ide/assets/graphiql.min.css">
</head>
<body>
  <div id="graphiql">Loading GraphiQL...</div>
  <script src="/ide/assets/react.production.min.js"></script>
  <script src="/ide/assets/react-dom.production.min.js"></script>
  <script src="/ide/assets/graphiql.min.js"></script>
  <script src="/ide/assets/init.js"></script>
</body>
</html>
`;

const init = `(function () {
  var e = React.createElement;
  var KEY = 'vozgate.authorization';
  var HINT = ${JSON.stringify(TOKEN_HINT)};
  var base = GraphiQL.createFetcher({
    url: '/graphql',
    subscriptionUrl: (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql',
  });

  function authorizationOf(headers) {
    var value = headers && (headers.Authorization || headers.authorization);
    return typeof value === 'string' ? value : '';
  }
  var hasToken = function (authorization) { return /^Bearer\\s+[^\\s<]/i.test(authorization); };

  // A subscription's socket closed by the server (4401: the token) ends the stream with an
  // Error, which GraphiQL would show as its stack, or a CloseEvent, shown as {}: either becomes
  // a GraphQL error that says the code and the reason.
  async function* readable(results) {
    try {
      for await (var result of results) yield result;
    } catch (error) {
      var closed = error && typeof error.code === 'number' && 'reason' in error;
      var message = closed ? 'Socket closed with event ' + error.code + ' ' + error.reason : error instanceof Error ? error.message : String(error);
      yield { errors: [{ message: message }] };
    }
  }

  // graphiql's subscription stream also leaves its error in a promise nobody awaits: shown in
  // the result pane already, it need not be reported again as uncaught.
  window.addEventListener('unhandledrejection', function (event) {
    if (event.reason instanceof Error && /^Socket closed with event /.test(event.reason.message)) event.preventDefault();
  });

  function fetcher(params, options) {
    if (params.operationName === 'IntrospectionQuery' && !hasToken(authorizationOf(options && options.headers))) return Promise.resolve(HINT);
    // graphiql's fetcher answers a promise of the result, or of a subscription's stream.
    return Promise.resolve(base(params, options)).then(function (result) {
      return result && typeof result[Symbol.asyncIterator] === 'function' ? readable(result) : result;
    });
  }

  function Ide() {
    var state = React.useState(function () { return sessionStorage.getItem(KEY) || 'Bearer '; });
    var authorization = state[0];
    var setAuthorization = state[1];
    var timer = React.useRef(undefined);
    // GraphiQL introspects again with each new fetcher: one per token.
    var current = React.useMemo(function () { return function (params, options) { return fetcher(params, options); }; }, [authorization]);
    var onEditHeaders = React.useCallback(function (text) {
      clearTimeout(timer.current);
      timer.current = setTimeout(function () {
        var headers;
        try { headers = JSON.parse(text || '{}'); } catch (error) { return; } // still being typed
        var value = authorizationOf(headers) || 'Bearer ';
        sessionStorage.setItem(KEY, value);
        setAuthorization(value);
      }, 300);
    }, []);
    return e(GraphiQL, {
      fetcher: current,
      onEditHeaders: onEditHeaders,
      defaultEditorToolsVisibility: 'headers',
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: false,
      defaultQuery: ${JSON.stringify(WELCOME + examples)},
      defaultHeaders: JSON.stringify({ Authorization: authorization }, null, 2),
      storage: GraphiQL.createLocalStorage({ namespace: 'vozgate' }),
    });
  }
  ReactDOM.createRoot(document.getElementById('graphiql')).render(e(Ide));
})();
`;

export const ideAssets: Record<string, Asset> = {
  '/graphql': { text: page, type: HTML },
  '/ide/assets/graphiql.min.css': { file: path.join(moduleDir('graphiql'), 'graphiql.min.css'), type: CSS },
  '/ide/assets/graphiql.min.js': { file: path.join(moduleDir('graphiql'), 'graphiql.min.js'), type: JS },
  '/ide/assets/react.production.min.js': { file: path.join(moduleDir('react'), 'umd', 'react.production.min.js'), type: JS },
  '/ide/assets/react-dom.production.min.js': { file: path.join(moduleDir('react-dom'), 'umd', 'react-dom.production.min.js'), type: JS },
  '/ide/assets/init.js': { text: init, type: JS },
};

/** Whether a request to /graphql is a browser asking for the page, not an operation. */
export function wantsIde(method: string | undefined, accept: string | undefined, search: string): boolean {
  return method === 'GET' && !new URLSearchParams(search).has('query') && /\btext\/html\b/.test(accept ?? '');
}
