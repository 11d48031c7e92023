import { Field, Float, Int, ObjectType } from 'type-graphql';
import { PageType } from '../../graphql/pagination';
import { SMS_STATUSES } from './sms.entity';

/** The spec's SMS record (plus the sender's number, the encoding and a failure's detail). */
@ObjectType('Sms', { simpleResolvers: true, description: 'An SMS sent from one of the account’s numbers.' })
export class SmsRecord {
  @Field(() => Int)
  id!: number;

  @Field(() => Int, { nullable: true, description: 'The sending number.' })
  phone_number_id!: number | null;

  @Field(() => String, { description: 'The sending number, E.164.' })
  from!: string;

  @Field(() => String, { description: 'E.164.' })
  to!: string;

  @Field(() => String)
  body!: string;

  @Field(() => Int, { description: 'The sending account.' })
  user_id!: number;

  @Field(() => String, { description: 'GSM-7 or UCS-2.' })
  encoding!: string;

  @Field(() => Int, { description: 'Billing segments.' })
  segments!: number;

  @Field(() => Float, { description: 'Cost per segment.' })
  segment_price!: number;

  @Field(() => Float, { description: 'segment_price × segments.' })
  total_cost!: number;

  @Field(() => String, { description: `One of: ${SMS_STATUSES.join(', ')}.` })
  status!: string;

  @Field(() => String, { nullable: true, description: 'The provider’s tracking id.' })
  sms_sid!: string | null;

  @Field(() => String, { nullable: true, description: 'The provider’s detail when sending failed.' })
  error!: string | null;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  created_at!: string;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  updated_at!: string;
}

@ObjectType('SmsPage', { simpleResolvers: true })
export class SmsPage extends PageType(SmsRecord) {}
