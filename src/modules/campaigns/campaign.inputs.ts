import { Field, InputType } from 'type-graphql';

@InputType('CreateCampaignInput')
export class CreateCampaignInput {
  @Field(() => String, { description: 'At most 255 characters.' })
  name!: string;
}
