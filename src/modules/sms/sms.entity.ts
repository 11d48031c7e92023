import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { SpecTimestampType } from '../../db/types';
import { nowSpecTimestamp } from '../../lib/time';
import { Account } from '../accounts/account.entity';

export const SMS_STATUSES = ['sending', 'sent', 'failed'] as const;
export type SmsStatus = (typeof SMS_STATUSES)[number];
export type SmsChannel = 'sms' | 'whatsapp';

/** An SMS sent from one of the account's numbers; the API shows it as an SmsRecord. */
@Entity({ tableName: 'sms_messages' })
export class Sms {
  [OptionalProps]?: 'sms_sid' | 'error' | 'created_at' | 'updated_at' | 'channel';

  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Account, { deleteRule: 'cascade' })
  account!: Account;

  @Property({ type: 'integer', nullable: true })
  phone_number_id!: number | null;

  @Property({ fieldName: 'from', length: 20 })
  from!: string;

  @Property({ fieldName: 'to', length: 20 })
  to!: string;

  @Property({ type: 'text' })
  body!: string;

  @Property({ length: 8 })
  encoding!: string;

  @Property({ type: 'integer' })
  segments!: number;

  @Property({ type: 'decimal', precision: 18, scale: 4 })
  segment_price!: string;

  @Property({ type: 'decimal', precision: 18, scale: 4 })
  total_cost!: string;

  @Property({ length: 16 })
  status!: SmsStatus;

  @Property({ length: 32 })
  provider!: string;

  /** `whatsapp`: sent to the `whatsapp:` addresses of `from` and `to` through the same Messages API. */
  @Property({ length: 16 })
  channel: SmsChannel = 'sms';

  @Property({ length: 64, nullable: true })
  sms_sid: string | null = null;

  @Property({ length: 512, nullable: true })
  error: string | null = null;

  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp() })
  created_at!: string;

  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp(), onUpdate: () => nowSpecTimestamp() })
  updated_at!: string;
}
