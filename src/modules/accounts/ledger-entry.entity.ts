import { OptionalProps, Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { IsoTimestampType } from '../../db/types';
import { Account } from './account.entity';

export const LEDGER_KINDS = ['credit', 'debit', 'sms', 'sms_refund', 'call', 'call_reservation', 'call_reservation_release', 'phone_number'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** One balance change. The ledger of an account sums to its balance. */
@Entity({ tableName: 'ledger_entries' })
export class LedgerEntry {
  [OptionalProps]?: 'reference' | 'created_at';

  @PrimaryKey({ type: 'bigint' })
  id!: string;

  @ManyToOne(() => Account, { deleteRule: 'cascade' })
  account!: Account;

  /** Signed exact decimal: positive credits, negative debits. */
  @Property({ type: 'decimal', precision: 18, scale: 4 })
  amount!: string;

  @Property({ type: 'decimal', precision: 18, scale: 4 })
  balance_after!: string;

  @Property({ length: 32 })
  kind!: LedgerKind;

  /** What caused it, such as `sms:12`. */
  @Property({ length: 255, nullable: true })
  reference: string | null = null;

  @Property({ type: IsoTimestampType, onCreate: () => new Date().toISOString() })
  created_at!: string;
}
