import { isDeepStrictEqual } from 'node:util';
/**
 * Shared shapes of the OpenAPI document: a schema is marked with its name where it is made
 * (a `LeadFields` fragment makes `Lead`), and once the document is whole each marked schema
 * moves to `components.schemas` and its places get a `$ref`. Generated clients then have one
 * `Lead` type instead of one anonymous copy per route.
 */
export type JsonSchema = Record<string, unknown>;

const NAME = Symbol('component name');

/** The schema, to be shared as `components.schemas[name]`. */
export function named(name: string, schema: JsonSchema): JsonSchema {
  return { ...schema, [NAME]: name };
}

/** The name a schema will be shared under, if any. */
export function nameOf(schema: JsonSchema | undefined): string | undefined {
  return schema ? ((schema as Record<symbol, string | undefined>)[NAME] ?? undefined) : undefined;
}

/**
 * The schema, or null. A shared schema stays whole (anyOf), so that every place refers to the
 * same one; an enumeration lists null too, or a null would fail it.
 */
export function orNull(schema: JsonSchema): JsonSchema {
  if (nameOf(schema) || typeof schema.type !== 'string') return { anyOf: [schema, { type: 'null' }] };
  const withNull: JsonSchema = { ...schema, type: [schema.type, 'null'] };
  if (Array.isArray(schema.enum)) withNull.enum = [...schema.enum, null];
  return withNull;
}

/**
 * A copy of `node` with every marked schema replaced by a `$ref` to `schemas`, where it is
 * added. Two different schemas under one name are a mistake in the route table: it throws.
 */
export function hoistComponents<T>(node: T, schemas: Record<string, JsonSchema>): T {
  if (Array.isArray(node)) return node.map((item) => hoistComponents(item, schemas)) as T;
  if (node === null || typeof node !== 'object') return node;
  const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, hoistComponents(value, schemas)]));
  const name = nameOf(node as JsonSchema);
  if (!name) return copy as T;
  if (schemas[name] && !isDeepStrictEqual(schemas[name], copy)) {
    throw new Error(`OpenAPI: two different schemas are named ${name}; give one of the fragments another name`);
  }
  schemas[name] = copy;
  return { $ref: `#/components/schemas/${name}` } as T;
}
