/**
 * What a GraphQL field's selection asks for below it: a read that costs more for some fields
 * (a candle page's trade flow) fetches them only when the document names one, through
 * fragments and inline fragments alike.
 */
import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/** Whether any field named in `names` is selected anywhere below the field being resolved. */
export function selectsAny(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>, names: ReadonlySet<string>): boolean {
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode | undefined): boolean => {
    if (!set) return false;
    for (const sel of set.selections) {
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
