import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { findWithTotal } from '../../db/entity-manager';
import { findForUpdate } from '../../db/locks';
import { FieldErrorCollector, FieldMessages, Messages, NotFoundError, ValidationError } from '../../errors';
import { makePage, offsetOf, type Page } from '../../graphql/pagination';
import { checkLength, checkOneOf } from '../../lib/checks';
import { checkPaging } from '../../lib/listing';
import { Account } from '../accounts/account.entity';
import type { Scope } from '../scope';
import { Folder } from './folder.entity';
import { Label } from './label.entity';
import type { BadgeListArgs } from './organize.inputs';
import { BADGE_COLORS, MAX_BADGE_NAME, type BadgeColor } from './organize.rules';

/**
 * Folders and labels: the same rules for both (README, "Assistants and the catalogue"). A name is
 * unique in the account, case aside ("VIP" and "vip" would be two badges nobody tells apart);
 * the unique index on (account_id, lower(name)) decides, also between two creates at once.
 */
type Badge = Folder | Label;
interface Kind<T extends Badge> {
  entity: new () => T;
  notFound: string;
  /** How many of the account's assistants each of `ids` has: (id, n) rows. */
  counts: string;
}

const FOLDERS: Kind<Folder> = {
  entity: Folder,
  notFound: Messages.folderNotFound,
  counts: 'select folder_id as id, count(*)::int as n from assistants where folder_id = any(?::int[]) group by folder_id',
};
const LABELS: Kind<Label> = {
  entity: Label,
  notFound: Messages.labelNotFound,
  counts: 'select label_id as id, count(*)::int as n from assistant_labels where label_id = any(?::int[]) group by label_id',
};

interface BadgeValues {
  name?: string | null;
  color?: string | null;
}

/** `name` (required on create) and `color`; a null colour is none. */
function checkValues(input: BadgeValues, create: boolean): { name?: string; color?: BadgeColor | null } {
  const errors = new FieldErrorCollector();
  const values: { name?: string; color?: BadgeColor | null } = {};
  if (input.name === null || (create && input.name === undefined)) errors.add('name', FieldMessages.required('name'));
  else if (input.name !== undefined) values.name = checkLength(errors, 'name', input.name, 1, MAX_BADGE_NAME) ?? undefined;
  if (input.color === null) values.color = null;
  else if (input.color !== undefined) {
    const color = input.color.trim().toLowerCase();
    if (checkOneOf(errors, 'color', color, BADGE_COLORS)) values.color = color as BadgeColor;
  }
  errors.throwIfAny();
  return values;
}

const taken = () => new ValidationError({ name: [FieldMessages.taken('name')] });

async function withCounts<T extends Badge>(scope: Scope, kind: Kind<T>, badges: T[]): Promise<T[]> {
  if (badges.length === 0) return badges;
  const rows: { id: number; n: number }[] = await scope.em.execute(kind.counts, [`{${badges.map((badge) => badge.id).join(',')}}`]);
  const counts = new Map(rows.map((row) => [row.id, row.n]));
  for (const badge of badges) badge.assistants_count = counts.get(badge.id) ?? 0;
  return badges;
}

async function list<T extends Badge>(scope: Scope, kind: Kind<T>, args: BadgeListArgs): Promise<Page<T>> {
  const errors = new FieldErrorCollector();
  const { page, perPage } = checkPaging(errors, args);
  errors.throwIfAny();
  const [rows, total] = await findWithTotal(scope.em, kind.entity, { account: scope.accountId } as never, {
    orderBy: { id: 'asc' } as never,
    limit: perPage,
    offset: offsetOf(page, perPage),
  });
  return makePage(await withCounts(scope, kind, rows), total, page, perPage);
}

async function requireBadge<T extends Badge>(scope: Scope, kind: Kind<T>, id: number): Promise<T> {
  const badge = await scope.em.findOne(kind.entity, { id, account: scope.accountId } as never);
  if (!badge) throw new NotFoundError(kind.notFound);
  return badge;
}

async function create<T extends Badge>(scope: Scope, kind: Kind<T>, input: BadgeValues): Promise<T> {
  const { name, color } = checkValues(input, true);
  try {
    return await scope.em.transactional(async (em) => {
      const badge = em.create(kind.entity, { account: em.getReference(Account, scope.accountId), name: name!, color: color ?? null } as never);
      await em.flush();
      return badge;
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw taken();
    throw error;
  }
}

async function update<T extends Badge>(scope: Scope, kind: Kind<T>, id: number, input: BadgeValues): Promise<T> {
  const values = checkValues(input, false);
  try {
    await scope.em.transactional(async (em) => {
      const badge = await findForUpdate(em, kind.entity, id, scope.accountId);
      if (!badge) throw new NotFoundError(kind.notFound);
      em.assign(badge, values as never);
      await em.flush();
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw taken();
    throw error;
  }
  scope.em.clear();
  const [badge] = await withCounts(scope, kind, [await requireBadge(scope, kind, id)]);
  return badge;
}

/** Deletes it; the foreign keys take it off its assistants (a folder's are left in none). */
async function remove<T extends Badge>(scope: Scope, kind: Kind<T>, id: number): Promise<void> {
  const deleted = await scope.em.nativeDelete(kind.entity, { id, account: scope.accountId } as never);
  if (deleted === 0) throw new NotFoundError(kind.notFound);
}

export const listFolders = (scope: Scope, args: BadgeListArgs) => list(scope, FOLDERS, args);
export const createFolder = (scope: Scope, input: BadgeValues) => create(scope, FOLDERS, input);
export const updateFolder = (scope: Scope, id: number, input: BadgeValues) => update(scope, FOLDERS, id, input);
export const deleteFolder = (scope: Scope, id: number) => remove(scope, FOLDERS, id);
export const listLabels = (scope: Scope, args: BadgeListArgs) => list(scope, LABELS, args);
export const createLabel = (scope: Scope, input: BadgeValues) => create(scope, LABELS, input);
export const updateLabel = (scope: Scope, id: number, input: BadgeValues) => update(scope, LABELS, id, input);
export const deleteLabel = (scope: Scope, id: number) => remove(scope, LABELS, id);
