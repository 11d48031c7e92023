import path from 'node:path';
import { CSS, HTML, JS, type Asset } from './static';

/**
 * `GET /docs`: the REST reference, Swagger UI (the `swagger-ui-dist` package) reading
 * `/api/openapi.json`, every file served by this server.
 */
const dist = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>vozgate REST API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>
`;

// No validator badge: it is an image from swagger.io, and the page asks nothing of another host.
const init = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#reference', deepLinking: true, persistAuthorization: true, validatorUrl: null });\n`;

export const referenceAssets: Record<string, Asset> = {
  '/docs': { text: page, type: HTML },
  '/docs/assets/swagger-ui.css': { file: path.join(dist, 'swagger-ui.css'), type: CSS },
  '/docs/assets/swagger-ui-bundle.js': { file: path.join(dist, 'swagger-ui-bundle.js'), type: JS },
  '/docs/assets/init.js': { text: init, type: JS },
};
