import { Field, InputType, Int } from 'type-graphql';
import { DOCUMENT_TYPES, MAX_DESCRIPTION, MAX_NAME, SEARCH_LANGUAGES } from './knowledge.rules';

@InputType('CreateKnowledgeBaseInput')
export class CreateKnowledgeBaseInput {
  @Field(() => String, { description: `1 to ${MAX_NAME} characters.` })
  name!: string;

  @Field(() => String, { nullable: true, description: `At most ${MAX_DESCRIPTION} characters.` })
  description?: string | null;

  @Field(() => String, { nullable: true, description: `The text-search configuration: one of ${SEARCH_LANGUAGES.join(', ')}; default portuguese.` })
  language?: string | null;
}

@InputType('UpdateKnowledgeBaseInput', { description: 'Only the fields sent change.' })
export class UpdateKnowledgeBaseInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => String, { nullable: true, description: 'Changing it re-indexes the base’s chunks with the new configuration.' })
  language?: string | null;
}

@InputType('KnowledgeDocumentLinkInput')
export class KnowledgeDocumentLinkInput {
  @Field(() => String, { description: 'An http(s) URL.' })
  link!: string;
}

@InputType('CreateKnowledgeDocumentInput', {
  description: 'A website (url or links), a text (content), or a file (pdf, docx, txt: the REST route’s multipart `file`).',
})
export class CreateKnowledgeDocumentInput {
  @Field(() => String, { description: `1 to ${MAX_NAME} characters.` })
  name!: string;

  @Field(() => String, { nullable: true, description: `At most ${MAX_DESCRIPTION} characters.` })
  description?: string | null;

  @Field(() => String, { description: `One of: ${DOCUMENT_TYPES.join(', ')}.` })
  type!: string;

  @Field(() => String, { nullable: true, description: 'website: the page to start from (required unless links are sent).' })
  url?: string | null;

  @Field(() => [KnowledgeDocumentLinkInput], { nullable: true, description: 'website: the pages to read (required unless url is sent); at most KB_MAX_WEBSITE_PAGES.' })
  links?: KnowledgeDocumentLinkInput[] | null;

  @Field(() => Int, { nullable: true, description: 'website: same-host links to follow from url, 1 to KB_MAX_WEBSITE_PAGES; default 10.' })
  relative_links_limit?: number | null;

  @Field(() => String, { nullable: true, description: 'text: the document’s text; at most KB_MAX_DOCUMENT_BYTES bytes as UTF-8.' })
  content?: string | null;
}

@InputType('UpdateKnowledgeDocumentInput', { description: 'Only the name and the description change; the content is replaced by deleting the document and creating it again.' })
export class UpdateKnowledgeDocumentInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true })
  description?: string | null;
}
