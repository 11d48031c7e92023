import 'reflect-metadata';
import { getSchema } from '../src/graphql/schema';
import { buildOpenApi } from '../src/rest/openapi';
import { routes } from '../src/rest/routes';

/** Writes the OpenAPI document of the REST API to stdout (`npm run openapi` keeps openapi.json). */
getSchema().then(
  (schema) => process.stdout.write(`${JSON.stringify(buildOpenApi(schema, routes), null, 2)}\n`),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
