/**
 * A candle page's `data` and `columns`: from the page's text rows (domain/candle-text.ts), as
 * bytes written by the JSON row writer REST uses when the selection is plain and the response
 * is an HTTP one (raw-json.ts), else as objects (a subscription, fragments, directives).
 */
import type { GraphQLResolveInfo } from 'graphql';
import { Ctx, FieldResolver, Info, Resolver, Root } from 'type-graphql';
import { CANDLE_TEXT } from '../../domain/candle-text';
import { textColumnsJson, textRowsJson, type JsonMember } from '../../encoding/json-rows';
import type { GqlContext } from '../context';
import { plainSelection, responsePath } from '../raw-json';
import { candleColumnsOf, candlesOf, type CandlePageSource } from '../serializers';
import { CandleColumnsType, CandlePageType, CandleType } from '../types/market.types';

/** The selection's members as the writer names them, when it can write them. */
function members(info: GraphQLResolveInfo, ctx: GqlContext): JsonMember[] | null {
  if (ctx.rawJson === undefined) return null;
  const selection = plainSelection(info);
  return selection === null ? null : selection.map((s) => ({ name: s.key, value: CANDLE_TEXT[s.field as keyof typeof CANDLE_TEXT] }));
}

@Resolver(() => CandlePageType)
export class CandlePageResolver {
  @FieldResolver(() => [CandleType])
  data(@Root() page: CandlePageSource, @Ctx() ctx: GqlContext, @Info() info: GraphQLResolveInfo): CandleType[] {
    const m = members(info, ctx);
    if (m === null) return candlesOf(page);
    ctx.rawJson!.add(responsePath(info), OPEN_LIST, textRowsJson(page.rows, page.count, m), CLOSE_LIST);
    return [];
  }

  @FieldResolver(() => CandleColumnsType, { description: 'The page as columns (see CandleColumns).' })
  columns(@Root() page: CandlePageSource, @Ctx() ctx: GqlContext, @Info() info: GraphQLResolveInfo): CandleColumnsType {
    const m = members(info, ctx);
    if (m === null) return candleColumnsOf(page);
    ctx.rawJson!.add(responsePath(info), textColumnsJson(page.rows, page.count, m));
    return NO_COLUMNS;
  }
}

const OPEN_LIST = Buffer.from('[');
const CLOSE_LIST = Buffer.from(']');

/** The placeholder of written columns: every list empty (the response holds the bytes instead). */
const NO_COLUMNS = Object.fromEntries(Object.keys(CANDLE_TEXT).map((field) => [field, Object.freeze([])])) as unknown as CandleColumnsType;
