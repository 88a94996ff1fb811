/**
 * Document validation that never throws. graphql-js 16's SingleFieldSubscriptionsRule collects a
 * subscription's root fields with no variables, so `@skip(if: $v)` or `@include(if: $v)` there
 * makes `validate` throw instead of report, and Apollo would answer a 500. The spec's draft and
 * graphql-js 17 refuse those directives at a subscription's root outright; so does this rule,
 * before the stock rule runs.
 */
import {
  GraphQLError,
  Kind,
  parse,
  SingleFieldSubscriptionsRule,
  specifiedRules,
  type ASTVisitor,
  type DirectiveNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

const CONDITIONAL = new Set(['skip', 'include']);

/** The message graphql-js 17 gives, so a client sees the same words after an upgrade. */
function rootDirectiveMessage(operation: OperationDefinitionNode): string {
  const name = operation.name ? `Subscription "${operation.name.value}"` : 'Anonymous Subscription';
  return `${name} must not use \`@skip\` or \`@include\` directives in the top level selection.`;
}

/** The `@skip`/`@include` directives in a subscription's root selection, through its fragments (each visited once). */
function rootDirectives(operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): GraphQLError | undefined {
  const found: DirectiveNode[] = [];
  const seen = new Set<string>();
  const pending: SelectionSetNode[] = [operation.selectionSet];
  for (let set = pending.pop(); set; set = pending.pop()) {
    for (const selection of set.selections) {
      found.push(...(selection.directives ?? []).filter((d) => CONDITIONAL.has(d.name.value)));
      if (selection.kind === Kind.INLINE_FRAGMENT) pending.push(selection.selectionSet);
      if (selection.kind === Kind.FRAGMENT_SPREAD && !seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) pending.push(fragment.selectionSet);
      }
    }
  }
  return found.length ? new GraphQLError(rootDirectiveMessage(operation), { nodes: found }) : undefined;
}

function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  return fragments;
}

/** SingleFieldSubscriptionsRule, reporting root `@skip`/`@include` itself instead of letting the stock rule throw on them. */
function singleFieldSubscriptions(context: ValidationContext): ASTVisitor {
  const stock = SingleFieldSubscriptionsRule(context) as { OperationDefinition(node: OperationDefinitionNode): void };
  let fragments: Map<string, FragmentDefinitionNode> | undefined;
  return {
    OperationDefinition(node) {
      if (node.operation === 'subscription') {
        fragments ??= fragmentsOf(context.getDocument());
        const refused = rootDirectives(node, fragments);
        if (refused) return context.reportError(refused);
      }
      stock.OperationDefinition(node);
    },
  };
}

/** graphql-js's specified rules with the subscription rule made safe: for every document validated here. */
export const VALIDATION_RULES: readonly ValidationRule[] = specifiedRules.map((rule) => (rule === SingleFieldSubscriptionsRule ? singleFieldSubscriptions : rule));

/**
 * For Apollo, whose validation runs graphql-js's own rules: a query text that would make them
 * throw, answered instead as the validation error (400) the safe rule reports. Only a text
 * naming a subscription is parsed here; anything it cannot parse is left to Apollo.
 */
export function refuseUnsafeSubscription(text: unknown): void {
  // The keyword, not a field such as `subscriptions`: other documents are not parsed twice.
  if (typeof text !== 'string' || !/\bsubscription\b/.test(text)) return;
  let document: DocumentNode;
  try {
    document = parse(text);
  } catch {
    return;
  }
  const fragments = fragmentsOf(document);
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION || d.operation !== 'subscription') continue;
    const refused = rootDirectives(d, fragments);
    if (refused) {
      throw new GraphQLError(refused.message, { nodes: refused.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } });
    }
  }
}
