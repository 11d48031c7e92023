import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('Language', { simpleResolvers: true, description: "A language an assistant can speak; use its name as an assistant's `language`." })
@Entity({ tableName: 'languages' })
export class Language {
  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @Field(() => String)
  @Property({ length: 100, unique: true })
  name!: string;

  @Field(() => String, { description: 'ISO 639-1 two-letter code.' })
  @Property({ length: 2, columnType: 'char(2)' })
  iso_2!: string;
}
