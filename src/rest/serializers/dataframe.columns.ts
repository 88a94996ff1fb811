/**
 * The data routes as dataframes (format=parquet, format=arrow): the CSV's columns and cells, and
 * the places of each decimal column, as the API renders them (8 for funding rates, the premiums
 * and the predicted funding rate, 6 for everything else); a candle's `trades` is an Int64.
 */
import type {
  Candle,
  CandleRequest,
  Derivatives,
  DerivativesRequest,
  FeatureRequest,
  FeatureRow,
  FundingRate,
  FundingRequest,
  MultiAssetRequest,
  MultiAssetRow,
  Page,
} from '../../domain/market';
import type { DataframePage } from '../dataframe.writer';
import { candleCsvCells, candleCsvColumns } from './candle.serializer';
import { DERIVATIVES, DERIVATIVES_PLACES } from './derivatives.serializer';
import { featureCsvCells, featureCsvColumns } from './feature.serializer';
import { fundingCsvCells, fundingCsvColumns } from './funding.serializer';
import { multiAssetCsvCells, multiAssetCsvColumns } from './multi-asset.serializer';

const six = () => 6;

export const candleFrame = (q: CandleRequest, p: Page<Candle>): DataframePage<Candle> => ({
  columns: candleCsvColumns(q),
  scaleOf: six,
  integer: (column) => column === 'trades',
  rows: p.data,
  cells: candleCsvCells(q),
  nextStart: p.nextStart,
});

export const derivativesFrame = (_q: DerivativesRequest, p: Page<Derivatives>): DataframePage<Derivatives> => ({
  columns: DERIVATIVES.names,
  scaleOf: (column) => DERIVATIVES_PLACES[column] ?? 6,
  rows: p.data,
  cells: DERIVATIVES.csvCells,
  nextStart: p.nextStart,
});

export const fundingFrame = (q: FundingRequest, p: Page<FundingRate>): DataframePage<FundingRate> => ({
  columns: fundingCsvColumns(q),
  // rate and premium 8; rate_normalized, a z-score, 6.
  scaleOf: (column) => (column === 'rate_normalized' ? 6 : 8),
  rows: p.data,
  cells: fundingCsvCells(q),
  nextStart: p.nextStart,
});

export const featureFrame = (q: FeatureRequest, p: Page<FeatureRow>): DataframePage<FeatureRow> => ({
  columns: featureCsvColumns(q),
  scaleOf: six,
  rows: p.data,
  cells: featureCsvCells(q),
  nextStart: p.nextStart,
});

/** One column per requested symbol; funding_rate has the funding rate's 8 places (multiAssetSource). */
export const multiAssetFrame = (q: MultiAssetRequest, p: Page<MultiAssetRow>): DataframePage<MultiAssetRow> => ({
  columns: multiAssetCsvColumns(q),
  scaleOf: () => (q.field === 'funding_rate' ? 8 : 6),
  rows: p.data,
  cells: multiAssetCsvCells(q),
  nextStart: p.nextStart,
});
