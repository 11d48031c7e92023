import {
  defaultFieldResolver,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { FieldErrorCollector, FieldMessages } from '../errors';

/**
 * Limits every argument of every query and mutation obeys, checked before the resolver
 * runs, for GraphQL and the REST shim alike (the shim runs the same root fields):
 * - no text PostgreSQL cannot store: NUL, and UTF-16 halves without their pair (jsonb
 *   refuses both, text columns refuse NUL);
 * - free-form objects (`variables`, ...) nested at most MAX_JSON_DEPTH levels, so that no
 *   serialiser down the line recurses without bound;
 * - lists of at most MAX_LIST_ITEMS items (services set tighter limits of their own).
 * A breach is the usual 422 on the field, named as the services name it (`name`,
 * `secondary_contacts.3.variables`), without the `input` argument's own name.
 */
export const MAX_JSON_DEPTH = 10;
export const MAX_LIST_ITEMS = 100;

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A field's name below another, as field errors name it (`secondary_contacts.0.phone_number`). */
export function joinPath(path: string, key: string | number): string {
  return path === '' ? String(key) : `${path}.${key}`;
}

/** A free-form JSON value: its strings (keys too), and its depth. */
function checkJson(errors: FieldErrorCollector, path: string, value: unknown, depth: number): void {
  if (typeof value === 'string') {
    if (UNSTORABLE.test(value)) errors.add(path, FieldMessages.unstorableText(path));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (depth > MAX_JSON_DEPTH) {
    errors.add(path, FieldMessages.tooDeep(path, MAX_JSON_DEPTH));
    return;
  }
  const entries = Array.isArray(value) ? value.entries() : Object.entries(value);
  for (const [key, item] of entries) {
    if (typeof key === 'string' && UNSTORABLE.test(key)) {
      errors.add(path, FieldMessages.unstorableText(path));
      continue;
    }
    checkJson(errors, joinPath(path, key), item, depth + 1);
  }
}

function checkValue(errors: FieldErrorCollector, type: GraphQLInputType, path: string, value: unknown): void {
  if (value === null || value === undefined) return;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    if (!Array.isArray(value)) return;
    if (value.length > MAX_LIST_ITEMS) {
      errors.add(path, FieldMessages.maxItems(path, MAX_LIST_ITEMS));
      return;
    }
    value.forEach((item, index) => checkValue(errors, inner.ofType, joinPath(path, index), item));
    return;
  }
  if (isInputObjectType(inner)) {
    const fields = inner.getFields();
    for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
      if (fields[name]) checkValue(errors, fields[name].type, joinPath(path, name), item);
    }
    return;
  }
  checkJson(errors, path, value, 1);
}

/** The field errors of one root field's arguments (empty when they are all storable). */
export function checkArguments(args: readonly GraphQLArgument[], values: Record<string, unknown>): FieldErrorCollector {
  const errors = new FieldErrorCollector();
  for (const arg of args) {
    // An input object is the REST body: its fields are named without the argument's name.
    const path = isInputObjectType(getNamedType(arg.type)) && !isListType(isNonNullType(arg.type) ? arg.type.ofType : arg.type) ? '' : arg.name;
    checkValue(errors, arg.type, path, values[arg.name]);
  }
  return errors;
}

/** Wraps the resolvers of the root fields that take arguments with the checks above. */
export function guardArguments(schema: GraphQLSchema): GraphQLSchema {
  const roots = [schema.getQueryType(), schema.getMutationType()].filter((type): type is GraphQLObjectType => !!type);
  for (const root of roots) {
    for (const field of Object.values(root.getFields()) as GraphQLField<unknown, unknown>[]) {
      if (field.args.length === 0) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, context, info) => {
        checkArguments(field.args, args).throwIfAny();
        return resolve(source, args, context, info);
      };
    }
  }
  return schema;
}
