import { OptionalProps, Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { SpecTimestampType } from '../../db/types';
import { nowSpecTimestamp } from '../../lib/time';
import { Account } from './account.entity';

/** A telephone number an account rents: it places calls and, when SMS-capable, sends SMS; marked `whatsapp`, WhatsApp messages. */
@Entity({ tableName: 'phone_numbers' })
export class PhoneNumber {
  [OptionalProps]?: 'sms_enabled' | 'whatsapp_enabled' | 'subscription_expires_at' | 'nickname' | 'provider' | 'provider_sid' | 'monthly_price' | 'renews' | 'created_at' | 'updated_at';

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

  /** The account's own name for it (PUT /user/phone-numbers/{id}). */
  @Property({ length: 255, nullable: true })
  nickname: string | null = null;

  /** The telephony provider it was bought from (`twilio`, `simulator`); null for a number given by the operator. */
  @Property({ length: 16, nullable: true })
  provider: string | null = null;

  /** The provider's id of the number (Twilio's IncomingPhoneNumber sid), to release it. */
  @Property({ length: 64, nullable: true })
  provider_sid: string | null = null;

  /** What each month costs, charged to the balance: the price when it was bought. */
  @Property({ type: 'decimal', precision: 18, scale: 4, nullable: true })
  monthly_price: string | null = null;

  /** The renewal job charges it each month; false once it expired for want of balance. */
  @Property()
  renews: boolean = false;

  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp() })
  created_at!: string;

  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp(), onUpdate: () => nowSpecTimestamp() })
  updated_at!: string;
}
