import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'An OHLCV candle; decimals as strings with 6 places, exactly as REST renders them.' })
export class Candle {
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
}

@ObjectType({
  description:
    'The same candles column by column: one list per field, index i of every list is one candle. ' +
    'Cheaper to produce and parse than `data` for large pages (charts, dataframes).',
})
export class CandleColumns {
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
}

@ObjectType()
export class CandlePage {
  @Field(() => Int)
  count!: number;

  @Field(() => String, { nullable: true, description: 'Pass as start to fetch the next page; null when none is left.' })
  nextStart!: string | null;

  @Field(() => [Candle])
  data!: Candle[];

  @Field(() => CandleColumns, { description: 'The page as columns (see CandleColumns).' })
  columns!: CandleColumns;
}

@ObjectType({ description: 'An hourly funding rate.' })
export class FundingRow {
  @Field()
  time!: string;

  @Field({ description: 'Raw hourly rate, 8 decimals.' })
  rate!: string;

  @Field(() => String, { nullable: true, description: 'Z-score over 720 hourly rates (normalized: true); null in warm-up.' })
  rateNormalized!: string | null;

  @Field(() => String, { nullable: true, description: '(perp - spot) / spot on the previous hour closes (normalized: true).' })
  premium!: string | null;
}

@ObjectType()
export class FundingPage {
  @Field(() => Int)
  count!: number;

  @Field(() => String, { nullable: true })
  nextStart!: string | null;

  @Field(() => [FundingRow])
  data!: FundingRow[];
}

@ObjectType({ description: 'First and last candle (or funding) time of a market at one timeframe.' })
export class Coverage {
  @Field({ description: '1m, 5m, 15m, 1h, 4h, 1d or funding' })
  timeframe!: string;
  @Field()
  first!: string;
  @Field()
  last!: string;
}

@ObjectType({ description: 'A symbol on one venue.' })
export class Market {
  @Field()
  exchange!: string;

  @Field()
  symbol!: string;
}

@ObjectType()
export class QualityComponents {
  @Field({ description: 'present / expected candles over the last 7 days' })
  gapRateScore!: string;
  @Field({ description: '1 - share of 1-period log returns with |z| > 4' })
  anomalyScore!: string;
  @Field({ description: '1 below 0.5% mean perp/spot basis, 0 at 2%' })
  consistencyScore!: string;
  @Field({ description: '1 when the latest candle is within the freshness SLA' })
  freshnessScore!: string;
}

@ObjectType({ description: 'A missing run of candles: open times in [start, end).' })
export class TimeInterval {
  @Field()
  start!: string;
  @Field()
  end!: string;
}

@ObjectType({ description: 'Data Quality Score of one timeframe (GET /v1/quality), plus its band and the holes behind gapRateScore.' })
export class QualityRecord {
  @Field()
  timeframe!: string;
  @Field()
  dqs!: string;
  @Field({ description: 'production-ready, minor issues, data quality concerns or significant issues' })
  band!: string;
  @Field()
  computedAt!: string;
  @Field(() => QualityComponents)
  components!: QualityComponents;
  @Field(() => Int)
  expectedCandles!: number;
  @Field(() => Int)
  presentCandles!: number;
  @Field(() => [TimeInterval])
  missingIntervals!: TimeInterval[];
}

@ObjectType()
export class NamedValue {
  @Field()
  name!: string;
  @Field(() => String, { nullable: true, description: 'null where the feature cannot be computed (warm-up).' })
  value!: string | null;
}

@ObjectType({ description: 'Feature values at one time, one entry per requested feature, in request order.' })
export class FeatureValues {
  @Field()
  time!: string;
  @Field(() => [NamedValue])
  values!: NamedValue[];
}

@ObjectType()
export class FeaturePage {
  @Field(() => [String])
  features!: string[];
  @Field(() => Int)
  count!: number;
  @Field(() => String, { nullable: true })
  nextStart!: string | null;
  @Field(() => [FeatureValues])
  data!: FeatureValues[];
}

@ObjectType()
export class SymbolValue {
  @Field()
  symbol!: string;
  @Field()
  value!: string;
}

@ObjectType({ description: 'One timestamp across symbols; a symbol without a value at that time is absent.' })
export class MultiAssetRow {
  @Field()
  time!: string;
  @Field(() => [SymbolValue])
  values!: SymbolValue[];
}

@ObjectType()
export class MultiAssetPage {
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
  @Field(() => [MultiAssetRow])
  data!: MultiAssetRow[];
}
