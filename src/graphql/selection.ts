/**
 * What a GraphQL field's selection asks for below it: a read that costs more for some fields
 * (a candle page's trade flow) fetches them only when the document names one, through
 * fragments and inline fragments alike, and not where @skip or @include leaves it out.
 */
import { Kind, type DirectiveNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/** Whether @skip / @include leave a selection in, with the operation's variables. */
function included(directives: readonly DirectiveNode[] | undefined, variables: Record<string, unknown>): boolean {
  for (const d of directives ?? []) {
    const arg = d.arguments?.find((a) => a.name.value === 'if')?.value;
    const value = arg?.kind === Kind.BOOLEAN ? arg.value : arg?.kind === Kind.VARIABLE ? variables[arg.name.value] === true : undefined;
    if (d.name.value === 'skip' && value === true) return false;
    if (d.name.value === 'include' && value === false) return false;
  }
  return true;
}

/** Whether any field named in `names` is selected anywhere below the field being resolved. */
export function selectsAny(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments' | 'variableValues'>, names: ReadonlySet<string>): boolean {
  const seen = new Set<string>();
  const variables = info.variableValues ?? {};
  const walk = (set: SelectionSetNode | undefined): boolean => {
    if (!set) return false;
    for (const sel of set.selections) {
      if (!included(sel.directives, variables)) continue;
      if (sel.kind === Kind.FIELD) {
        if (names.has(sel.name.value) || walk(sel.selectionSet)) return true;
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        if (walk(sel.selectionSet)) return true;
      } else if (!seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        if (walk(info.fragments[sel.name.value]?.selectionSet)) return true;
      }
    }
    return false;
  };
  return info.fieldNodes.some((node) => walk(node.selectionSet));
}
