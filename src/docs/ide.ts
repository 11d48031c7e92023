import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CSS, HTML, JS, type Asset } from './static';

/**
 * GraphiQL for browsers at `GET /graphql` (Accept: text/html), from the project's own
 * packages (graphiql's browser bundle and React 18's), so that it works offline and behind
 * firewalls. The first tab opens with a comment that says what to do, over the example
 * operations of examples/operations.graphql, its comments wrapped to the editor's width. The
 * headers editor starts as {"Authorization": "Bearer "}: the token goes after "Bearer ". Until
 * it is there, the schema is not asked for (it would be a 401): the result pane says where to
 * paste it, and that line goes once the token is there. Each
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
# 1. Paste your token after "Bearer " in the Headers tab below. Docs (the book icon), completion (Ctrl-Space) and error underlines follow at once. The first start prints the demo account's token; this makes one:
#    npm run cli -- token:create --account ID
# 2. Put the cursor in an operation and press Ctrl-Enter (or the run button). Subscriptions stream their events into the result pane:
#    subscription { leadUpdated { id status } }
#
# The example operations of examples/operations.graphql follow.

`;

/** A comment line's longest length in the first tab: the query editor's width beside the run button in a 1280-pixel window. */
export const COMMENT_COLUMNS = 50;

/**
 * Comment lines longer than `columns` broken between words, each line after the first indented
 * under the text of a numbered step, so that none runs under the editor's edge.
 */
export function wrapComments(text: string, columns = COMMENT_COLUMNS): string {
  return text
    .split('\n')
    .flatMap((line) => {
      const comment = /^(\s*#\s*)(\d+\.\s+)?(.*)$/.exec(line);
      if (!comment || line.length <= columns) return [line];
      const [, lead, step = '', body] = comment;
      const hanging = lead + ' '.repeat(step.length);
      const lines: string[] = [];
      let current = lead + step;
      for (const word of body.split(/\s+/).filter(Boolean)) {
        const bare = current === lead + step || current === hanging;
        if (!bare && current.length + 1 + word.length > columns) {
          lines.push(current);
          current = hanging;
        }
        current += (current === lead + step || current === hanging ? '' : ' ') + word;
      }
      return [...lines, current];
    })
    .join('\n');
}

/** What the result pane says while there is no token to ask for the schema with; it goes once a token is there. */
export const TOKEN_HINT = 'Paste your token after "Bearer " in the Headers tab below; Docs and completion then load.';

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
    // The hint was the answer to a schema request without a token: with one, it is not true any more.
    React.useEffect(function () {
      var pane = document.querySelector('.result-window .CodeMirror');
      if (hasToken(authorization) && pane && pane.CodeMirror.getValue() === HINT) pane.CodeMirror.setValue('');
    }, [authorization]);
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
      defaultQuery: ${JSON.stringify(wrapComments(WELCOME + examples))},
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
