import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config';

/** What a service call acts within: the request's EntityManager, its account and the config. */
export interface Scope {
  em: EntityManager;
  accountId: number;
  config: Config;
}
