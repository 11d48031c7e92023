import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CSS, HTML, JS, type Asset } from './static';

/**
 * GraphiQL for browsers at `GET /graphql` (Accept: text/html), from the project's own
 * packages (graphiql's browser bundle and React 18's), so that it works offline and behind
 * firewalls. The header editor starts with an empty bearer header for the user's token; the
 * example operations of examples/operations.graphql are the first tab. Subscriptions run over
 * the graphql-ws client bundled in graphiql's browser build.
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
const examples = examplesFile ? readFileSync(examplesFile, 'utf8') : '{ me { name balance } }\n';

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
  // Subscriptions go over graphql-ws on the same URL; the headers editor's Authorization
  // becomes the connection's connectionParams.
  var fetcher = GraphiQL.createFetcher({
    url: '/graphql',
    subscriptionUrl: (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql',
  });
  var headers = JSON.stringify({ Authorization: 'Bearer ' }, null, 2);
  var props = {
    fetcher: fetcher,
    defaultEditorToolsVisibility: 'headers',
    isHeadersEditorEnabled: true,
    shouldPersistHeaders: false,
    defaultQuery: ${JSON.stringify(examples)},
    defaultHeaders: headers,
    storage: GraphiQL.createLocalStorage({ namespace: 'vozgate' }),
  };
  ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(GraphiQL, props));
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
