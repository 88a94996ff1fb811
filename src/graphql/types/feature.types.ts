import { Field, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A feature that can be requested by name.' })
export class FeatureInfo {
  @Field()
  name!: string;

  @Field()
  description!: string;

  @Field({ description: 'momentum, trend, volatility, volume, funding or premium' })
  category!: string;
}
