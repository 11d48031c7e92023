import { ReferenceKind, type EntityClass } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SpecTimestampType } from './types';

type Mapper<T> = (row: Record<string, unknown>) => T;
const mappers = new WeakMap<object, Mapper<unknown>>();

/**
 * Rows as instances of an entity class, for answers that are only read (a list, a get by id):
 * each scalar column goes through its property's type, as the ORM's hydration would, but
 * nothing is registered in the unit of work. `em.map` spends most of a list's time there (the
 * identity map, change-set snapshots, relation propagation), which a read never uses. The
 * relations are left to the caller, who assigns what the answer needs (a plain assignment).
 * An instance made here must not be flushed.
 */
export function readOnlyMapper<T extends object>(em: EntityManager, entity: EntityClass<T>): Mapper<T> {
  const known = mappers.get(entity);
  if (known) return known as Mapper<T>;
  const meta = em.getMetadata().get(entity.name);
  const platform = em.getPlatform();
  const columns = columnProps(em, entity);
  const props = columns.filter((prop) => prop.kind === ReferenceKind.SCALAR).map((prop) => ({ name: prop.name, field: prop.fieldNames[0], type: prop.customType }));
  const relations = columns.filter((prop) => prop.kind !== ReferenceKind.SCALAR).map((prop) => prop.name);
  // The ORM puts a setter for each property on the entity's prototype, which makes the
  // instance managed on first assignment. A prototype between them with plain writable
  // properties of the same names lets an assignment make a plain own property instead, and
  // the instance stays an instance of the class (its getters work).
  const prototype = Object.create(meta.class.prototype);
  for (const name of [...props.map((prop) => prop.name), ...relations]) Object.defineProperty(prototype, name, { value: undefined, writable: true, configurable: true });
  // One function with the property names written out, as the ORM compiles its hydrators:
  // every instance then has the same shape, and the assignments are not by dynamic key.
  const lines = props.map((prop, i) => {
    const read = `row[${JSON.stringify(prop.field)}]`;
    const value = prop.type ? `${read} == null ? null : types[${i}].convertToJSValue(${read}, platform)` : `${read} ?? null`;
    return `o[${JSON.stringify(prop.name)}] = ${value};`;
  });
  const compile = new Function('types', 'platform', 'prototype', `return function map(row) { const o = Object.create(prototype); ${lines.join(' ')} return o; };`);
  const mapper = compile(
    props.map((prop) => prop.type),
    platform,
    prototype,
  ) as Mapper<T>;
  mappers.set(entity, mapper as Mapper<unknown>);
  return mapper;
}

/** The properties stored in one column of the entity's table: its scalars and its foreign keys. */
function columnProps(em: EntityManager, entity: EntityClass<object>) {
  return em
    .getMetadata()
    .get(entity.name)
    .props.filter((prop) => prop.persist !== false && prop.fieldNames?.length === 1);
}

const jsonRows = new WeakMap<object, string>();

/**
 * SQL for one row of the entity's table as a JSON object keyed by column, which `readOnlyMapper`
 * maps as it maps a row (`alias` names the table in the query). A row or a list of rows then
 * comes in one column: the driver reads each column of each row on its own, and one JSON
 * column costs less than many, mostly null, ones. The values map as the driver's do: a
 * decimal comes as text (a JSON number would round it), and so does a timestamp that no type
 * of the entity's reads (`SpecTimestampType` reads JSON's ISO text too); JSON is JSON. When no
 * column needs text, the row is PostgreSQL's own `to_json`, which costs it a third of building
 * the object key by key.
 */
export function jsonRowOf(em: EntityManager, entity: EntityClass<object>, alias: string): string {
  let known = jsonRows.get(entity);
  if (!known) {
    const columns = columnProps(em, entity).map((prop) => {
      const type = String(prop.columnTypes?.[0] ?? '').toLowerCase();
      const asText = type.startsWith('numeric') || type.startsWith('decimal') || (type.startsWith('timestamp') && !(prop.customType instanceof SpecTimestampType));
      return { column: prop.fieldNames[0], asText };
    });
    known = columns.some((column) => column.asText)
      ? `json_build_object(${columns.map(({ column, asText }) => `'${column}', $alias."${column}"${asText ? '::text' : ''}`).join(', ')})`
      : 'to_json($alias)';
    jsonRows.set(entity, known);
  }
  return known.replaceAll('$alias', alias);
}
