/** Pre-computed features. So far: the catalogue, served as one pre-rendered body. */
import { FEATURE_CATALOGUE, type FeatureInfo } from '../domain/feature-catalogue';

const CATALOGUE_JSON = JSON.stringify({ features: FEATURE_CATALOGUE });

export class FeaturesService {
  catalogue(): readonly FeatureInfo[] {
    return FEATURE_CATALOGUE;
  }

  /** `{"features":[...]}`, rendered once: the catalogue never changes while running. */
  catalogueJson(): string {
    return CATALOGUE_JSON;
  }
}
