import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { SpecTimestampType } from '../../db/types';
import { nowSpecTimestamp } from '../../lib/time';
import { Account } from '../accounts/account.entity';

export const SMS_STATUSES = ['sending', 'sent', 'failed'] as const;
export type SmsStatus = (typeof SMS_STATUSES)[number];

@ObjectType('Sms', { description: 'An SMS sent from one of the account’s numbers.' })
@Entity({ tableName: 'sms_messages' })
export class Sms {
  [OptionalProps]?: 'sms_sid' | 'error' | 'created_at' | 'updated_at' | 'user_id';

  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Account, { deleteRule: 'cascade' })
  account!: Account;

  @Field(() => Int, { description: 'The sending account.' })
  get user_id(): number {
    return this.account.id;
  }

  @Field(() => Int, { nullable: true, description: 'The sending number.' })
  @Property({ type: 'integer', nullable: true })
  phone_number_id!: number | null;

  @Field(() => String, { description: 'The sending number, E.164.' })
  @Property({ fieldName: 'from', length: 20 })
  from!: string;

  @Field(() => String, { description: 'E.164.' })
  @Property({ fieldName: 'to', length: 20 })
  to!: string;

  @Field(() => String)
  @Property({ type: 'text' })
  body!: string;

  @Field(() => String, { description: 'GSM-7 or UCS-2.' })
  @Property({ length: 8 })
  encoding!: string;

  @Field(() => Int, { description: 'Billing segments.' })
  @Property({ type: 'integer' })
  segments!: number;

  @Field(() => Float, { description: 'Cost per segment.' })
  @Property({ type: 'decimal', precision: 18, scale: 4 })
  segment_price!: string;

  @Field(() => Float, { description: 'segment_price × segments.' })
  @Property({ type: 'decimal', precision: 18, scale: 4 })
  total_cost!: string;

  @Field(() => String, { description: `One of: ${SMS_STATUSES.join(', ')}.` })
  @Property({ length: 16 })
  status!: SmsStatus;

  @Property({ length: 32 })
  provider!: string;

  @Field(() => String, { nullable: true, description: 'The provider’s tracking id.' })
  @Property({ length: 64, nullable: true })
  sms_sid: string | null = null;

  @Field(() => String, { nullable: true, description: 'The provider’s detail when sending failed.' })
  @Property({ length: 512, nullable: true })
  error: string | null = null;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp() })
  created_at!: string;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp(), onUpdate: () => nowSpecTimestamp() })
  updated_at!: string;
}
