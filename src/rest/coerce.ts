import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  typeFromAST,
  type GraphQLEnumType,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { FieldErrorCollector, FieldMessages } from '../errors';
import { MAX_LIST_ITEMS, joinPath } from '../graphql/input-guard';

/** A JSON object, as opposed to an array, null or a scalar. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Turns the JSON of a REST request into the variables of a GraphQL operation, reading the
 * types from the schema itself. Clients of the REST API send what PHP clients send
 * (`"12"` for 12, `[]` for an empty object), and a wrong type must come back as the
 * documented 422 with a Portuguese message under the spec's field name, never as a GraphQL
 * coercion error. Fields of an input-object variable are named without the variable's name
 * (`campaign_id`, `secondary_contacts.0.phone_number`), because the REST body is that input.
 */
export interface Coerced {
  variables: Record<string, unknown>;
  errors: FieldErrorCollector;
  /** Top-level keys of input-object variables that the input type does not have. */
  unknownFields: string[];
  /** The keys those input types do have (to suggest `phone_number` for `phoneNumber`). */
  knownFields: string[];
}

export function coerceVariables(routeVariables: readonly RouteVariable[], raw: Record<string, unknown>): Coerced {
  const errors = new FieldErrorCollector();
  const unknownFields: string[] = [];
  const knownFields: string[] = [];
  const variables: Record<string, unknown> = {};
  for (const { name, type, transparent } of routeVariables) {
    const value = coerce(type, raw[name], transparent ? '' : name, errors, transparent ? unknownFields : null);
    if (value !== undefined) variables[name] = value;
    const named = getNamedType(type);
    if (transparent && isInputObjectType(named)) knownFields.push(...fieldsOf(named).names);
  }
  return { variables, errors, unknownFields, knownFields };
}

export interface RouteVariable {
  name: string;
  type: GraphQLInputType;
  /** An input object (not a list of them): its fields are named without the variable's name. */
  transparent: boolean;
}

/** An operation's variables with their types, read from the schema once, when a route is compiled. */
export function variablesOf(schema: GraphQLSchema, operation: OperationDefinitionNode): RouteVariable[] {
  return (operation.variableDefinitions ?? []).map((definition) => {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type as never) as GraphQLInputType | undefined;
    if (!type) throw new Error(`unknown type for $${name}`);
    return { name, type, transparent: isInputObjectType(getNamedType(type)) && !isListType(isNonNullType(type) ? type.ofType : type) };
  });
}

/** `make(key)`, made once for each key (a schema's types, which live as long as it does). */
function memo<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) made.set(key, (value = make(key)));
    return value;
  };
}

const fieldsOf = memo((type: GraphQLInputObjectType) => {
  const fields = Object.values(type.getFields());
  return { fields, names: new Set(fields.map((field) => field.name)) };
});

const valuesOf = memo((type: GraphQLEnumType) => type.getValues().map((value) => value.name));

const INTEGER_TEXT = /^\s*[-+]?\d+\s*$/;
const NUMBER_TEXT = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** The name a field error goes under: the body itself when the body is the input. */
function fieldName(path: string): string {
  return path === '' ? 'body' : path;
}

function coerce(
  type: GraphQLInputType,
  value: unknown,
  path: string,
  errors: FieldErrorCollector,
  unknownFields: string[] | null,
): unknown {
  if (isNonNullType(type)) {
    if (value === undefined || value === null) {
      errors.add(fieldName(path), FieldMessages.required(fieldName(path)));
      return undefined;
    }
    return coerce(type.ofType, value, path, errors, unknownFields);
  }
  if (value === undefined || value === null) return value;

  if (isListType(type)) {
    if (!Array.isArray(value)) {
      errors.add(path, FieldMessages.list(path));
      return undefined;
    }
    // The resolvers' own guard refuses it too; refusing here spares coercing every item.
    if (value.length > MAX_LIST_ITEMS) {
      errors.add(path, FieldMessages.maxItems(path, MAX_LIST_ITEMS));
      return undefined;
    }
    return value.map((item, index) => coerce(type.ofType, item, joinPath(path, index), errors, null));
  }

  if (isInputObjectType(type)) {
    if (!isPlainObject(value)) {
      errors.add(fieldName(path), FieldMessages.object(fieldName(path)));
      return undefined;
    }
    const { fields, names } = fieldsOf(type);
    if (unknownFields) for (const key of Object.keys(value)) if (!names.has(key)) unknownFields.push(key);
    const result: Record<string, unknown> = {};
    for (const field of fields) {
      const coerced = coerce(field.type, value[field.name], joinPath(path, field.name), errors, null);
      if (coerced !== undefined) result[field.name] = coerced;
    }
    return result;
  }

  if (isEnumType(type)) {
    const allowed = valuesOf(type);
    if (typeof value === 'string' && allowed.includes(value)) return value;
    errors.add(path, FieldMessages.oneOf(path, allowed));
    return undefined;
  }

  if (isScalarType(type)) return coerceScalar(type.name, value, path, errors);
  return value;
}

function coerceScalar(name: string, value: unknown, path: string, errors: FieldErrorCollector): unknown {
  switch (name) {
    case 'Int': {
      const number = typeof value === 'number' ? value : typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : NaN;
      if (Number.isInteger(number) && number >= INT32_MIN && number <= INT32_MAX) return number;
      errors.add(path, FieldMessages.integer(path));
      return undefined;
    }
    case 'Float': {
      const number = typeof value === 'number' ? value : typeof value === 'string' && NUMBER_TEXT.test(value) ? Number(value) : NaN;
      if (Number.isFinite(number)) return number;
      errors.add(path, FieldMessages.number(path));
      return undefined;
    }
    case 'Boolean': {
      if (typeof value === 'boolean') return value;
      if (value === 1 || value === '1' || value === 'true') return true;
      if (value === 0 || value === '0' || value === 'false') return false;
      errors.add(path, FieldMessages.boolean(path));
      return undefined;
    }
    case 'String':
      if (typeof value === 'string') return value;
      errors.add(path, FieldMessages.string(path));
      return undefined;
    case 'JSONObject':
      if (isPlainObject(value)) return value;
      // PHP encodes an empty associative array as [].
      if (Array.isArray(value) && value.length === 0) return {};
      errors.add(path, FieldMessages.object(path));
      return undefined;
    default:
      return value;
  }
}
