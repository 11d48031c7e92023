import { OptionalProps, Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { SpecTimestampType } from '../../db/types';
import { nowSpecTimestamp } from '../../lib/time';
import { Account } from './account.entity';

/** A telephone number an account rents: it places calls and, when SMS-capable, sends SMS; marked `whatsapp`, WhatsApp messages. */
@Entity({ tableName: 'phone_numbers' })
export class PhoneNumber {
  [OptionalProps]?: 'sms_enabled' | 'whatsapp_enabled' | 'subscription_expires_at' | 'created_at' | 'updated_at';

  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Account, { deleteRule: 'cascade' })
  account!: Account;

  /** E.164. */
  @Property({ length: 20, unique: true })
  number!: string;

  @Property()
  sms_enabled: boolean = false;

  /** One of the account's WhatsApp senders (a number Twilio has as a WhatsApp sender). */
  @Property()
  whatsapp_enabled: boolean = false;

  /** Last day of the subscription (`YYYY-MM-DD`); null means it does not expire. */
  @Property({ type: 'date', nullable: true })
  subscription_expires_at: string | null = null;

  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp() })
  created_at!: string;

  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp(), onUpdate: () => nowSpecTimestamp() })
  updated_at!: string;
}
