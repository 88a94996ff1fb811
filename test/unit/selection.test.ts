/**
 * Whether a GraphQL field selects the trade flow below it (src/graphql/selection.ts): fields,
 * fragments, inline fragments, and @skip / @include with literals and variables.
 */
import { Kind, parse, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { selectsAny } from '../../src/graphql/selection';

const FLOW = new Set(['trades', 'takerBuyVolume']);

/** The info of the first `candles` field of `doc`, as a resolver gets it. */
function infoOf(doc: string, variableValues: Record<string, unknown> = {}) {
  const parsed = parse(doc);
  const fragments = Object.fromEntries(
    parsed.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const op = parsed.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const market = op.selectionSet.selections[0] as FieldNode;
  const candles = market.selectionSet!.selections[0] as FieldNode;
  return { fieldNodes: [candles], fragments, variableValues };
}

describe('selectsAny', () => {
  it.each([
    ['a field of the rows', '{ market { candles { data { time trades } } } }', {}, true],
    ['a column', '{ market { candles { columns { takerBuyVolume } } } }', {}, true],
    ['none of them', '{ market { candles { data { time close } columns { close } } } }', {}, false],
    ['a fragment', '{ market { candles { data { ...f } } } } fragment f on Candle { trades }', {}, true],
    ['an inline fragment', '{ market { candles { data { ... on Candle { trades } } } } }', {}, true],
    ['@include(if: false)', '{ market { candles { data { trades @include(if: false) } } } }', {}, false],
    ['@skip(if: true)', '{ market { candles { data { trades @skip(if: true) } } } }', {}, false],
    ['@include with a variable set to false', 'query($f: Boolean!) { market { candles { data { trades @include(if: $f) } } } }', { f: false }, false],
    ['@include with a variable set to true', 'query($f: Boolean!) { market { candles { columns @include(if: $f) { trades } } } }', { f: true }, true],
  ])('when the selection has %s, then it counts as asked or not accordingly', (_what, doc, vars, expected) => {
    expect(selectsAny(infoOf(doc, vars), FLOW)).toBe(expected);
  });
});
