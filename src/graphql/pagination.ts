import { Field, Int, ObjectType, type ClassType } from 'type-graphql';

/** One page of a list, as Laravel's length-aware paginator counts it. */
export interface Page<T> {
  data: T[];
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
  from: number | null;
  to: number | null;
}

export const DEFAULT_PER_PAGE = 15;
export const MAX_PER_PAGE = 100;

export function offsetOf(page: number, perPage: number): number {
  return (page - 1) * perPage;
}

export function makePage<T>(data: T[], total: number, page: number, perPage: number): Page<T> {
  const offset = offsetOf(page, perPage);
  return {
    data,
    current_page: page,
    per_page: perPage,
    total,
    last_page: Math.max(1, Math.ceil(total / perPage)),
    from: data.length ? offset + 1 : null,
    to: data.length ? offset + data.length : null,
  };
}

/** The GraphQL page type of an item type: `{ data, current_page, per_page, total, last_page, from, to }`. */
export function PageType<T extends object>(item: ClassType<T>) {
  @ObjectType({ simpleResolvers: true })
  abstract class PageClass implements Page<T> {
    @Field(() => [item])
    data!: T[];

    @Field(() => Int)
    current_page!: number;

    @Field(() => Int)
    per_page!: number;

    @Field(() => Int)
    total!: number;

    @Field(() => Int)
    last_page!: number;

    @Field(() => Int, { nullable: true, description: 'Position of the first item on the page; null when the page is empty.' })
    from!: number | null;

    @Field(() => Int, { nullable: true, description: 'Position of the last item on the page; null when the page is empty.' })
    to!: number | null;
  }
  return PageClass;
}
