import { OptionalProps, Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { IsoTimestampType } from '../../db/types';
import { Account } from './account.entity';

/** An API token; only its SHA-256 digest is stored, with a short prefix to tell tokens apart. */
@Entity({ tableName: 'api_tokens' })
export class ApiToken {
  [OptionalProps]?: 'created_at' | 'name' | 'last_used_at';

  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Account, { deleteRule: 'cascade' })
  account!: Account;

  @Property({ length: 64, unique: true })
  token_hash!: string;

  @Property({ length: 16 })
  prefix!: string;

  @Property({ type: IsoTimestampType, onCreate: () => new Date().toISOString() })
  created_at!: string;

  /** The account's own word for it (which script or person holds it); null for the CLI's. */
  @Property({ length: 100, nullable: true })
  name: string | null = null;

  /** When a request last carried it, to the minute (written at most once a minute: authenticate). */
  @Property({ type: IsoTimestampType, nullable: true })
  last_used_at: string | null = null;
}
