/** Pre-computed features. So far: the catalogue, served as one pre-rendered body. */
import { FEATURE_CATALOGUE, type FeatureInfo } from '../domain/feature-catalogue';

export class FeaturesService {
  catalogue(): readonly FeatureInfo[] {
    return FEATURE_CATALOGUE;
  }
}
