import { ArgsType, Field, InputType, Int } from 'type-graphql';
import { BADGE_COLORS, MAX_BADGE_NAME } from './organize.rules';

const COLOR = `One of: ${BADGE_COLORS.join(', ')}; null: none.`;

@InputType()
abstract class CreateBadgeInput {
  @Field(() => String, { description: `1 to ${MAX_BADGE_NAME} characters; unique in the account, case aside.` })
  name!: string;

  @Field(() => String, { nullable: true, description: COLOR })
  color?: string | null;
}

/** Only the fields sent change. */
@InputType()
abstract class UpdateBadgeInput {
  @Field(() => String, { nullable: true, description: `1 to ${MAX_BADGE_NAME} characters; unique in the account, case aside.` })
  name?: string | null;

  @Field(() => String, { nullable: true, description: `${COLOR} Sent as null, it removes the colour.` })
  color?: string | null;
}

@InputType('CreateFolderInput')
export class CreateFolderInput extends CreateBadgeInput {}

@InputType('UpdateFolderInput', { description: 'Only the fields sent change.' })
export class UpdateFolderInput extends UpdateBadgeInput {}

@InputType('CreateLabelInput')
export class CreateLabelInput extends CreateBadgeInput {}

@InputType('UpdateLabelInput', { description: 'Only the fields sent change.' })
export class UpdateLabelInput extends UpdateBadgeInput {}

@ArgsType()
export class BadgeListArgs {
  @Field(() => Int, { nullable: true, description: 'Default 1.' })
  page?: number | null;

  @Field(() => Int, { nullable: true, description: '1 to 100, default 15.' })
  per_page?: number | null;
}
