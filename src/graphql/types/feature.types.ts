import { Field, ObjectType } from 'type-graphql';
import type { FeatureCategory, FeatureEntry } from '../../domain/feature-catalogue';

@ObjectType('FeatureInfo', { description: 'A feature that can be requested by name.' })
export class FeatureInfoType implements FeatureEntry {
  @Field()
  name!: string;

  @Field()
  description!: string;

  @Field(() => String, { description: 'momentum, trend, volatility, volume, funding or premium' })
  category!: FeatureCategory;
}
