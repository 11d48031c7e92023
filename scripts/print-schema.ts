import 'reflect-metadata';
import { printSortedSchema } from '../src/graphql/schema';

/** Writes the SDL of the TypeGraphQL schema, sorted, to stdout (`npm run schema` keeps schema.graphql). */
printSortedSchema().then(
  (sdl) => process.stdout.write(sdl),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
