import { FieldMessages, Messages, type FieldErrorCollector } from '../../errors';
import { isPlainObject } from '../coerce';
import { messageAnd, messageOnly } from '../openapi';
import { queryVariables, type Route } from './route';

/** What creating or updating an assistant answers, as the spec gives it. */
const SUMMARY_FIELDS = `fragment AssistantSummaryFields on Assistant { id name status type mode }`;

const ASSISTANT_FIELDS = `
  fragment AssistantFields on Assistant {
    id name status type mode
    assistant_name voice_id language llm_model calls_direction engine_type timezone initial_message system_prompt
    phone_number_id phone_number tool_ids
    endpoint_type endpoint_sensitivity interrupt_sensitivity ambient_sound_volume
    post_call_evaluation send_webhook_only_on_completed include_recording_in_webhook is_webhook_active webhook_url
    use_min_interrupt_words min_interrupt_words variables
    post_call_schema { name type description }
    end_call_tool { description }
    llm_temperature voice_stability voice_similarity speech_speed allow_interruptions filler_audios
    re_engagement_interval max_call_duration max_silence_duration end_call_on_voicemail noise_cancellation record_call
    who_speaks_first keyterms fallback_models fallback_voice_id transcriber knowledgebase_id knowledgebase_mode pronunciations { word say_as } backchannel_words false_interruption_timeout_ms voicemail_message voicemail_beep_timeout_seconds
    transfer_numbers { number description } transfer_mode transfer_message
    folder_id label_ids
    created_at updated_at voice_ready voice_missing
  }`;

/**
 * The field names of the original platform's current API, which its clients (the MCP server,
 * the n8n node) send, as the spec names them; value-mapped ones take only the values listed.
 * `language_id` and `llm_model_id` are fields of their own (ids resolve through the catalogue).
 */
export const ASSISTANT_ALIASES: Record<string, { field: string; values?: Record<string, string> }> = {
  name: { field: 'assistant_name' },
  type: { field: 'calls_direction', values: { inbound: 'receive', outbound: 'make' } },
  mode: { field: 'engine_type', values: { pipeline: 'pipeline', multimodal: 'multimodal' } },
  multimodal_model_id: { field: 'llm_model_id' },
  record: { field: 'record_call' },
  max_duration: { field: 'max_call_duration' },
  reengagement_interval: { field: 're_engagement_interval' },
  fillers: { field: 'filler_audios' },
  enable_noise_cancellation: { field: 'noise_cancellation' },
};

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * An assistant body in the spec's names, adding to `errors` what is wrong with it that the
 * input type cannot see: aliases renamed (a value-mapped alias with another value, or an
 * alias and its field with different values, is an error), on create `language` or
 * `language_id` and `llm_model` or `llm_model_id` required, and the spec's dotted
 * `end_call_tool.description` nested as GraphQL has it. Unknown keys are left for the
 * route's check.
 */
function assistantBody(body: unknown, create: boolean, errors: FieldErrorCollector): unknown {
  if (!isPlainObject(body)) return body;
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const alias = Object.hasOwn(ASSISTANT_ALIASES, key) ? ASSISTANT_ALIASES[key] : undefined;
    if (!alias) {
      // An alias of this key, seen first, compared the two already.
      if (!(key in input)) input[key] = value;
      continue;
    }
    let mapped = value;
    if (alias.values && value != null) {
      mapped = typeof value === 'string' && Object.hasOwn(alias.values, value) ? alias.values[value] : undefined;
      if (mapped === undefined) {
        errors.add(key, FieldMessages.oneOf(key, Object.keys(alias.values)));
        mapped = value; // kept, so that the field is not also reported missing
      }
    }
    const given = Object.hasOwn(body, alias.field) ? body[alias.field] : undefined;
    if (given === undefined) input[alias.field] = mapped;
    else if (!same(given, mapped) && !errors.has(key)) errors.add(key, FieldMessages.sameField(key, alias.field));
  }
  if (create) {
    for (const field of ['language', 'llm_model']) {
      if (input[field] == null && input[`${field}_id`] == null) errors.add(field, FieldMessages.required(field));
    }
  }
  if (!('end_call_tool.description' in input)) return input;
  const { 'end_call_tool.description': description, ...rest } = input;
  const nested = isPlainObject(rest.end_call_tool) ? rest.end_call_tool : {};
  return { ...rest, end_call_tool: { ...nested, description } };
}

const webhookAnswer = () => messageAnd({ type: 'array', maxItems: 0 });

const disableWebhook: Omit<Route, 'path'> = {
  method: 'POST',
  summary: 'Turn the assistant’s webhook off',
  body: ['assistant_id'],
  envelope: webhookAnswer(),
  document: `mutation DisableWebhook($assistant_id: Int!) { disableWebhook(assistant_id: $assistant_id) { id } }`,
  variables: (req) => ({ assistant_id: isPlainObject(req.body) ? req.body.assistant_id : undefined }),
  respond: () => ({ body: { message: Messages.webhookDisabled, data: [] } }),
  validationMessage: Messages.invalidData,
};

export const assistantRoutes: Route[] = [
  {
    method: 'GET',
    path: '/user/assistants/languages',
    summary: 'The languages an assistant can speak',
    document: `query Languages { languages { id name iso_2 } }`,
    variables: () => ({}),
    respond: (data) => ({ body: data.languages }),
  },
  {
    method: 'GET',
    path: '/user/assistants/models',
    summary: 'The language models an assistant can run on (type=llm or multimodal)',
    query: ['type'],
    document: `query Models($type: String) { models(type: $type) { id name provider type } }`,
    variables: (req) => queryVariables(req.query, ['type']),
    respond: (data) => ({ body: data.models }),
  },
  {
    method: 'GET',
    path: '/user/assistants/voices',
    summary: 'Public voices and the account’s own, of one engine mode',
    query: ['mode'],
    document: `query Voices($mode: String) { voices(mode: $mode) { id name mode provider provider_voice_id } }`,
    variables: (req) => ({ mode: req.query.get('mode') || undefined }),
    respond: (data) => ({ body: data.voices }),
  },
  // The original platform's MCP server lists these (get_synthesizer_providers, get_transcriber_providers).
  {
    method: 'GET',
    path: '/user/assistants/synthesizer-providers',
    summary: 'The text-to-speech vendors configured on this server; the first speaks the voices that name none',
    document: `query SynthesizerProviders { synthesizerProviders { id name code } }`,
    variables: () => ({}),
    respond: (data) => ({ body: data.synthesizerProviders }),
  },
  {
    method: 'GET',
    path: '/user/assistants/transcriber-providers',
    summary: 'The speech-to-text vendors configured on this server',
    document: `query TranscriberProviders { transcriberProviders { id name code } }`,
    variables: () => ({}),
    respond: (data) => ({ body: data.transcriberProviders }),
  },
  ...['/user/assistants/get', '/user/assistants'].map(
    (path): Route => ({
      method: 'GET',
      path,
      summary: 'List the account’s assistants, whole; only those in one folder (folder_id) or with one label (label_id) when asked',
      query: ['folder_id', 'label_id'],
      document: `query Assistants($folder_id: Int, $label_id: Int) { assistants(folder_id: $folder_id, label_id: $label_id) { ...AssistantFields } } ${ASSISTANT_FIELDS}`,
      variables: (req) => queryVariables(req.query, ['folder_id', 'label_id']),
      respond: (data) => ({ body: data.assistants }),
    }),
  ),
  {
    method: 'GET',
    path: '/user/assistants/outbound',
    summary: 'List the account’s outbound assistants, whole',
    document: `query OutboundAssistants { assistants(calls_direction: "make") { ...AssistantFields } } ${ASSISTANT_FIELDS}`,
    variables: () => ({}),
    respond: (data) => ({ body: data.assistants }),
  },
  {
    method: 'POST',
    path: '/user/assistant',
    summary: 'Create an assistant; optional fields take the documented defaults',
    status: 201,
    body: 'input',
    envelope: messageAnd(),
    document: `mutation CreateAssistant($input: CreateAssistantInput!) { createAssistant(input: $input) { ...AssistantSummaryFields } } ${SUMMARY_FIELDS}`,
    variables: (req, errors) => ({ input: assistantBody(req.body, true, errors) }),
    respond: (data) => ({ body: { message: Messages.assistantCreated, data: data.createAssistant } }),
    // A key that is neither the spec's nor an alias is refused, not dropped: no client is told
    // "created" or "updated" with a setting left out.
    rejectUnknownFields: true,
    failureMessage: Messages.assistantCreateFailed,
  },
  {
    method: 'GET',
    path: '/user/assistant/{id}',
    summary: 'Get an assistant’s whole configuration',
    document: `query Assistant($id: Int!) { assistant(id: $id) { ...AssistantFields } } ${ASSISTANT_FIELDS}`,
    variables: (req) => ({ id: req.params.id }),
    respond: (data) => ({ body: data.assistant }),
    notFound: Messages.assistantNotFound,
  },
  {
    method: 'PUT',
    path: '/user/assistant/{id}',
    summary: 'Update an assistant: only the fields sent change',
    body: 'input',
    envelope: messageAnd(),
    document: `mutation UpdateAssistant($id: Int!, $input: UpdateAssistantInput!) {
      updateAssistant(id: $id, input: $input) { ...AssistantSummaryFields }
    } ${SUMMARY_FIELDS}`,
    variables: (req, errors) => ({ id: req.params.id, input: assistantBody(req.body, false, errors) }),
    respond: (data) => ({ body: { message: Messages.assistantUpdated, data: data.updateAssistant } }),
    rejectUnknownFields: true,
    notFound: Messages.assistantNotFound,
    failureMessage: Messages.assistantUpdateFailed,
  },
  {
    method: 'DELETE',
    path: '/user/assistant/{id}',
    summary: 'Delete an assistant',
    envelope: messageOnly,
    document: `mutation DeleteAssistant($id: Int!) { deleteAssistant(id: $id) }`,
    variables: (req) => ({ id: req.params.id }),
    respond: () => ({ body: { message: Messages.assistantDeleted } }),
    notFound: Messages.assistantNotFound,
  },
  {
    method: 'POST',
    path: '/user/assistants/enable-inbound-webhook',
    summary: 'Turn the assistant’s webhook on, with a URL',
    body: ['assistant_id', 'webhook_url'],
    envelope: webhookAnswer(),
    document: `mutation EnableWebhook($assistant_id: Int!, $webhook_url: String!) {
      enableInboundWebhook(assistant_id: $assistant_id, webhook_url: $webhook_url) { id }
    }`,
    variables: (req) => (isPlainObject(req.body) ? { assistant_id: req.body.assistant_id, webhook_url: req.body.webhook_url } : {}),
    respond: () => ({ body: { message: Messages.webhookEnabled, data: [] } }),
    validationMessage: Messages.invalidData,
  },
  {
    method: 'POST',
    path: '/user/assistants/enable-conversation-ended-webhook',
    summary: 'Turn the assistant’s conversation-ended webhook on: each closed conversation (its messages, transcript and extracted variables) is posted to webhook_url, signed as the post-call webhook is',
    body: ['assistant_id', 'webhook_url'],
    envelope: webhookAnswer(),
    document: `mutation EnableConversationEndedWebhook($assistant_id: Int!, $webhook_url: String!) {
      enableConversationEndedWebhook(assistant_id: $assistant_id, webhook_url: $webhook_url) { id }
    }`,
    variables: (req) => (isPlainObject(req.body) ? { assistant_id: req.body.assistant_id, webhook_url: req.body.webhook_url } : {}),
    respond: () => ({ body: { message: Messages.conversationEndedWebhookEnabled, data: [] } }),
    validationMessage: Messages.invalidData,
  },
  {
    method: 'POST',
    path: '/user/assistants/disable-conversation-ended-webhook',
    summary: 'Turn the assistant’s conversation-ended webhook off',
    body: ['assistant_id'],
    envelope: webhookAnswer(),
    document: `mutation DisableConversationEndedWebhook($assistant_id: Int!) { disableConversationEndedWebhook(assistant_id: $assistant_id) { id } }`,
    variables: (req) => ({ assistant_id: isPlainObject(req.body) ? req.body.assistant_id : undefined }),
    respond: () => ({ body: { message: Messages.conversationEndedWebhookDisabled, data: [] } }),
    validationMessage: Messages.invalidData,
  },
  { ...disableWebhook, path: '/user/assistants/disable-webhook' },
  // Existing clients of the original platform call this name for the same operation.
  { ...disableWebhook, path: '/user/assistants/disable-inbound-webhook' },
];
