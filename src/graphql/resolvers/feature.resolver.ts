import { Query, Resolver } from 'type-graphql';
import type { FeaturesService } from '../../services/features.service';
import { FeatureInfo } from '../types/feature.types';

@Resolver()
export class FeatureResolver {
  constructor(private readonly features: FeaturesService) {}

  @Query(() => [FeatureInfo], { description: 'The feature catalogue (GET /v1/features/available).' })
  featureCatalogue(): readonly FeatureInfo[] {
    return this.features.catalogue();
  }
}
