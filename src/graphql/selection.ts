import type { GraphQLResolveInfo, SelectionSetNode } from 'graphql';

/**
 * Whether the operation asks, below the resolver's field, for the fields of `path` (one
 * name per level), through fragments too. Directives are not read: a field under @skip
 * counts as asked for, which costs a query at most.
 */
export function selects(info: GraphQLResolveInfo, ...path: string[]): boolean {
  const within = (set: SelectionSetNode | undefined, [name, ...rest]: string[]): boolean =>
    !!set &&
    set.selections.some((selection) => {
      if (selection.kind === 'InlineFragment') return within(selection.selectionSet, [name, ...rest]);
      if (selection.kind === 'FragmentSpread') return within(info.fragments[selection.name.value]?.selectionSet, [name, ...rest]);
      return selection.name.value === name && (rest.length === 0 || within(selection.selectionSet, rest));
    });
  return info.fieldNodes.some((node) => within(node.selectionSet, path));
}
