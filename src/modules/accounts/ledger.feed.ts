import type { EntityManager } from '@mikro-orm/postgresql';
import { Field, Float, ObjectType } from 'type-graphql';
import { FieldErrorCollector, FieldMessages, ValidationError } from '../../errors';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from '../../graphql/pagination';
import { checkIntRange } from '../../lib/checks';

@ObjectType('LedgerEntry', { simpleResolvers: true, description: 'One change of the balance; the ledger sums to the balance.' })
export class LedgerEntryView {
  @Field(() => String)
  id!: string;

  @Field(() => Float, { description: 'Positive for credits, negative for debits.' })
  amount!: number;

  @Field(() => Float)
  balance_after!: number;

  @Field(() => String, { description: 'credit, debit, sms, sms_refund, call, call_reservation or call_reservation_release.' })
  kind!: string;

  @Field(() => String, { nullable: true, description: 'What caused it, such as sms:12 or call:7.' })
  reference!: string | null;

  @Field(() => String, { description: 'ISO 8601.' })
  created_at!: string;
}

@ObjectType('LedgerFeed', { simpleResolvers: true, description: 'A slice of the ledger, newest first, and where the next one starts.' })
export class LedgerFeed {
  @Field(() => [LedgerEntryView])
  data!: LedgerEntryView[];

  @Field(() => String, { nullable: true, description: 'Pass it as `after` for the next slice; null after the last.' })
  next_after!: string | null;
}

/** A ledger row's id: PostgreSQL's bigint, as digits. */
const ENTRY_ID = /^[1-9]\d{0,17}$/;

const COLUMNS = 'id, amount, balance_after, kind, reference, created_at';

function entryView(row: any): LedgerEntryView {
  return {
    id: String(row.id),
    amount: Number(row.amount),
    balance_after: Number(row.balance_after),
    kind: row.kind,
    reference: row.reference,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** The most recent `limit` balance changes (1 to 100), newest first. */
export async function latestLedger(em: EntityManager, accountId: number, limit: number): Promise<LedgerEntryView[]> {
  const rows: unknown[] = await em.execute(`select ${COLUMNS} from ledger_entries where account_id = ? order by id desc limit ?`, [
    accountId,
    Math.min(MAX_PER_PAGE, Math.max(1, limit)),
  ]);
  return rows.map(entryView);
}

/**
 * The ledger a slice at a time, newest first: the entries after the entry `after` (older
 * than it). A slice reads its rows from the account's (account_id, id) index, so it costs the
 * same however deep it is.
 */
export async function ledgerFeed(em: EntityManager, accountId: number, args: { after?: string | null; per_page?: number | null }): Promise<LedgerFeed> {
  const errors = new FieldErrorCollector();
  const perPage = args.per_page ?? DEFAULT_PER_PAGE;
  checkIntRange(errors, 'per_page', perPage, 1, MAX_PER_PAGE);
  const after = args.after ?? null;
  if (after !== null && !ENTRY_ID.test(after)) errors.add('after', FieldMessages.invalidSelection('after'));
  errors.throwIfAny();
  const rows: unknown[] =
    after === null
      ? await em.execute(`select ${COLUMNS} from ledger_entries where account_id = ? order by id desc limit ?`, [accountId, perPage + 1])
      : // The cursor is checked in the same statement: an entry of another account is no place to start.
        await em.execute(
          `select ${COLUMNS} from ledger_entries where account_id = ? and id < ?
             and exists (select 1 from ledger_entries where id = ? and account_id = ?)
           order by id desc limit ?`,
          [accountId, after, after, accountId, perPage + 1],
        );
  if (rows.length === 0 && after !== null) {
    const [found] = await em.execute('select 1 from ledger_entries where id = ? and account_id = ?', [after, accountId]);
    if (!found) throw new ValidationError({ after: [FieldMessages.invalidSelection('after')] });
  }
  const data = rows.slice(0, perPage).map(entryView);
  return { data, next_after: rows.length > perPage ? data[data.length - 1].id : null };
}
