/**
 * The GraphQL types of market data. Each implements its domain type (domain/market.ts,
 * domain/quality.ts), so resolvers hand domain objects over as they are; the GraphQL names are
 * the schema's (schema.graphql).
 */
import { Field, Float, Int, ObjectType } from 'type-graphql';
import type {
  Candle as DomainCandle,
  Coverage as DomainCoverage,
  FundingRate as DomainFundingRate,
  IngestState,
  MarketRef as DomainMarketRef,
  MultiAssetRow as DomainMultiAssetRow,
  SymbolValue as DomainSymbolValue,
} from '../../domain/market';
import type { QualityRecord as DomainQualityRecord, TimeInterval as DomainTimeInterval } from '../../domain/quality';
import type { CandleTimeframe, FeatureTimeframe } from '../../domain/timeframe';

@ObjectType('Candle', { description: 'An OHLCV candle; decimals as strings with 6 places, exactly as REST renders them.' })
export class CandleType implements DomainCandle {
  @Field({ description: 'Open time, YYYY-MM-DDTHH:MM:SS+00:00.' })
  time!: string;
  @Field()
  open!: string;
  @Field()
  high!: string;
  @Field()
  low!: string;
  @Field()
  close!: string;
  @Field()
  volume!: string;
  @Field(() => String, { nullable: true, description: 'Number of trades (integer digits); null where the venue gave none (imports).' })
  trades?: string | null;
  @Field(() => String, { nullable: true, description: 'Volume in the quote asset; null where the venue gave none.' })
  quoteVolume?: string | null;
  @Field(() => String, { nullable: true, description: 'Base volume bought by takers; null where the venue gave none.' })
  takerBuyVolume?: string | null;
  @Field(() => String, { nullable: true, description: 'Quote volume bought by takers; null where the venue gave none.' })
  takerBuyQuoteVolume?: string | null;
}

@ObjectType('CandleColumns', {
  description:
    'The same candles column by column: one list per field, index i of every list is one candle. ' +
    'Cheaper to produce and parse than `data` for large pages (charts, dataframes).',
})
export class CandleColumnsType {
  @Field(() => [String])
  time!: string[];
  @Field(() => [String])
  open!: string[];
  @Field(() => [String])
  high!: string[];
  @Field(() => [String])
  low!: string[];
  @Field(() => [String])
  close!: string[];
  @Field(() => [String])
  volume!: string[];
  @Field(() => [String], { nullable: 'items' })
  trades!: Array<string | null>;
  @Field(() => [String], { nullable: 'items' })
  quoteVolume!: Array<string | null>;
  @Field(() => [String], { nullable: 'items' })
  takerBuyVolume!: Array<string | null>;
  @Field(() => [String], { nullable: 'items' })
  takerBuyQuoteVolume!: Array<string | null>;
}

@ObjectType('CandlePage')
export class CandlePageType {
  @Field(() => Int)
  count!: number;

  @Field(() => String, { nullable: true, description: 'Pass as start to fetch the next page; null when none is left.' })
  nextStart!: string | null;

  @Field(() => [CandleType])
  data!: CandleType[];

  @Field(() => CandleColumnsType, { description: 'The page as columns (see CandleColumns).' })
  columns!: CandleColumnsType;
}

@ObjectType('FundingRow', { description: 'An hourly funding rate.' })
export class FundingRowType implements DomainFundingRate {
  @Field()
  time!: string;

  @Field({ description: 'Raw hourly rate, 8 decimals.' })
  rate!: string;

  @Field(() => String, { nullable: true, description: 'Z-score over 720 hourly rates (normalized: true); null in warm-up.' })
  rateNormalized?: string | null;

  @Field(() => String, { nullable: true, description: '(perp - spot) / spot on the previous hour closes (normalized: true).' })
  premium?: string | null;

  // Declared here for its place among the fields; FundingRowResolver serves it as a number.
  @Field(() => Int, { description: 'Hours this settlement covers: 1 on an hourly venue, 4 or 8 where the venue settles so.' })
  intervalHours!: string;

  @Field({ description: 'rate / intervalHours, 8 decimals.' })
  rateHourly!: string;
}

@ObjectType('FundingPage')
export class FundingPageType {
  @Field(() => Int)
  count!: number;

  @Field(() => String, { nullable: true })
  nextStart!: string | null;

  @Field(() => [FundingRowType])
  data!: FundingRowType[];
}

@ObjectType('Coverage', { description: 'First and last candle (or funding) time of a market at one timeframe.' })
export class CoverageType implements DomainCoverage {
  @Field(() => String, { description: '1m, 5m, 15m, 1h, 4h, 1d or funding' })
  timeframe!: FeatureTimeframe | 'derivatives';
  @Field()
  first!: string;
  @Field(() => String)
  last!: string | null;
}

@ObjectType('IngestStatus', { description: 'Live ingestion of a market from its venue (null on Market.ingest when nothing ingests it).' })
export class IngestStatusType implements IngestState {
  @Field({ description: 'Whether the venue socket is connected (false once the ingesting process stops reporting).' })
  connected!: boolean;
  @Field(() => String, { nullable: true, description: 'Open time of the newest stored closed 1m candle.' })
  lastClosed!: string | null;
  @Field(() => Float, { nullable: true, description: "Seconds from that candle's close to now." })
  lag!: number | null;
}

@ObjectType('Market', { description: 'A symbol on one venue.' })
export class MarketType implements DomainMarketRef {
  @Field()
  exchange!: string;

  @Field()
  symbol!: string;
}

@ObjectType('QualityComponents')
export class QualityComponentsType {
  @Field({ description: 'present / expected candles over the last 7 days' })
  gapRateScore!: string;
  @Field({ description: '1 - share of 1-period log returns with |z| > 4' })
  anomalyScore!: string;
  @Field({ description: '1 below 0.5% mean perp/spot basis, 0 at 2%' })
  consistencyScore!: string;
  @Field({ description: '1 when the latest candle is within the freshness SLA' })
  freshnessScore!: string;
}

@ObjectType('TimeInterval', { description: 'A missing run of candles: open times in [start, end).' })
export class TimeIntervalType implements DomainTimeInterval {
  @Field()
  start!: string;
  @Field()
  end!: string;
}

@ObjectType('QualityRecord', { description: 'Data Quality Score of one timeframe (GET /v1/quality), plus its band and the holes behind gapRateScore.' })
export class QualityRecordType implements DomainQualityRecord {
  @Field(() => String)
  timeframe!: CandleTimeframe;
  @Field()
  dqs!: string;
  @Field({ description: 'production-ready, minor issues, data quality concerns or significant issues' })
  band!: string;
  @Field()
  computedAt!: string;
  @Field(() => QualityComponentsType)
  components!: QualityComponentsType;
  @Field(() => Int)
  expectedCandles!: number;
  @Field(() => Int)
  presentCandles!: number;
  @Field(() => [TimeIntervalType])
  missingIntervals!: TimeIntervalType[];
}

@ObjectType('NamedValue')
export class NamedValueType {
  @Field()
  name!: string;
  @Field(() => String, { nullable: true, description: 'null where the feature cannot be computed (warm-up).' })
  value!: string | null;
}

@ObjectType('FeatureValues', { description: 'Feature values at one time, one entry per requested feature, in request order.' })
export class FeatureValuesType {
  @Field()
  time!: string;
  @Field(() => [NamedValueType])
  values!: NamedValueType[];
}

@ObjectType('FeaturePage')
export class FeaturePageType {
  @Field(() => [String])
  features!: string[];
  @Field(() => Int)
  count!: number;
  @Field(() => String, { nullable: true })
  nextStart!: string | null;
  @Field(() => [FeatureValuesType])
  data!: FeatureValuesType[];
}

@ObjectType('SymbolValue')
export class SymbolValueType implements DomainSymbolValue {
  @Field()
  symbol!: string;
  @Field()
  value!: string;
}

@ObjectType('MultiAssetRow', { description: 'One timestamp across symbols; a symbol without a value at that time is absent.' })
export class MultiAssetRowType implements DomainMultiAssetRow {
  @Field()
  time!: string;
  @Field(() => [SymbolValueType])
  values!: SymbolValueType[];
}

@ObjectType('MultiAssetPage')
export class MultiAssetPageType {
  @Field(() => [String])
  symbols!: string[];
  @Field()
  exchange!: string;
  @Field()
  timeframe!: string;
  @Field()
  field!: string;
  @Field(() => Int)
  count!: number;
  @Field(() => String, { nullable: true })
  nextStart!: string | null;
  @Field(() => [MultiAssetRowType])
  data!: MultiAssetRowType[];
}
