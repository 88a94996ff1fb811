import { Query, Resolver } from 'type-graphql';
import type { FeatureEntry } from '../../domain/feature-catalogue';
import type { FeatureReadService } from '../../services/reads/feature-read.service';
import { FeatureInfoType } from '../types/feature.types';

@Resolver()
export class FeatureResolver {
  constructor(private readonly features: FeatureReadService) {}

  @Query(() => [FeatureInfoType], { description: 'The feature catalogue (GET /v1/features/available).' })
  featureCatalogue(): readonly FeatureEntry[] {
    return this.features.catalogue();
  }
}
