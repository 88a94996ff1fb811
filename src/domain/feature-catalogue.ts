/** The feature catalogue: every pre-computed feature a client can ask for, by name. */

export const FEATURE_CATEGORIES = ['momentum', 'trend', 'volatility', 'volume', 'funding', 'premium'] as const;
export type FeatureCategory = (typeof FEATURE_CATEGORIES)[number];

/** One catalogue entry (GET /v1/features/available, GraphQL `featureCatalogue`). */
export interface FeatureEntry {
  name: string;
  description: string;
  category: FeatureCategory;
}

export const FEATURE_CATALOGUE = [
  { name: 'rsi_9', category: 'momentum', description: 'RSI with period 9, Wilder smoothing' },
  { name: 'rsi_14', category: 'momentum', description: 'RSI with period 14, Wilder smoothing' },
  { name: 'rsi_21', category: 'momentum', description: 'RSI with period 21, Wilder smoothing' },
  { name: 'macd', category: 'trend', description: 'MACD line (12, 26, 9)' },
  { name: 'macd_signal', category: 'trend', description: '9-period EMA signal line of MACD' },
  { name: 'macd_histogram', category: 'trend', description: 'MACD minus its signal line' },
  { name: 'bb_upper', category: 'volatility', description: 'Upper Bollinger band (20, 2 sigma)' },
  { name: 'bb_middle', category: 'volatility', description: 'Middle Bollinger band: 20-period SMA' },
  { name: 'bb_lower', category: 'volatility', description: 'Lower Bollinger band (20, 2 sigma)' },
  { name: 'bb_width', category: 'volatility', description: 'Bollinger band width: (upper - lower) / middle' },
  { name: 'bb_pct', category: 'volatility', description: 'Bollinger %B: position of the close within the bands' },
  { name: 'atr_14', category: 'volatility', description: 'Average true range, period 14, Wilder smoothing' },
  { name: 'vwap_20', category: 'volume', description: '20-period rolling volume-weighted average price' },
  { name: 'twap_20', category: 'volume', description: '20-period rolling time-weighted average price' },
  { name: 'price_vs_vwap_20', category: 'volume', description: 'Deviation of the close from vwap_20, percent' },
  { name: 'funding_norm', category: 'funding', description: 'Funding rate z-score against a rolling 30-day window (720 hourly rates)' },
  { name: 'funding_cumulative_24h', category: 'funding', description: 'Sum of the last 24 hourly funding rates' },
  { name: 'funding_cumulative_7d', category: 'funding', description: 'Sum of the last 168 hourly funding rates' },
  { name: 'premium_pct', category: 'premium', description: 'Perp/spot basis in percent: (perp - spot) / spot x 100' },
  { name: 'premium_zscore', category: 'premium', description: 'Premium z-score against a rolling 30-day window (720 hourly values)' },
] as const satisfies readonly FeatureEntry[];

type CatalogueEntry = (typeof FEATURE_CATALOGUE)[number];
const isFundingTimeframe = (f: FeatureEntry) => f.category === 'funding' || f.category === 'premium';

/** The features computed from a series' candles (served on candle timeframes), in catalogue order. */
export type TechnicalFeature = Exclude<CatalogueEntry, { category: 'funding' | 'premium' }>['name'];
export const TECHNICAL_FEATURES = FEATURE_CATALOGUE.filter((f) => !isFundingTimeframe(f)).map((f) => f.name) as readonly TechnicalFeature[];

/** Features served on timeframe `funding` only; the rest on candle timeframes only. */
export const FUNDING_TIMEFRAME_FEATURES: ReadonlySet<string> = new Set(FEATURE_CATALOGUE.filter(isFundingTimeframe).map((f) => f.name));

export const FEATURE_NAMES = FEATURE_CATALOGUE.map((f) => f.name) as [string, ...string[]];
