import { OptionalProps, Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { SpecTimestampType } from '../../db/types';
import { nowSpecTimestamp } from '../../lib/time';

@Entity({ tableName: 'accounts' })
export class Account {
  [OptionalProps]?: 'email' | 'balance' | 'webhook_secret_sealed' | 'created_at' | 'updated_at';

  @PrimaryKey()
  id!: number;

  @Property({ length: 255 })
  name!: string;

  @Property({ length: 255, nullable: true })
  email: string | null = null;

  /** Exact decimal, as text; change it only through AccountService.adjustBalance. */
  @Property({ type: 'decimal', precision: 18, scale: 4 })
  balance: string = '0';

  /** The Standard Webhooks signing secret (`whsec_...`), encrypted; made on first use. */
  @Property({ type: 'text', nullable: true })
  webhook_secret_sealed: string | null = null;

  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp() })
  created_at!: string;

  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp(), onUpdate: () => nowSpecTimestamp() })
  updated_at!: string;
}
