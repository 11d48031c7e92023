import { Messages } from '../../errors';
import { isPlainObject } from '../../lib/objects';
import { messageAnd, messageOnly } from '../openapi';
import type { Route } from './route';

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
    who_speaks_first created_at updated_at
  }`;

/** The spec writes the end-call tool's description with a dotted key; GraphQL nests it. */
function assistantInput(body: unknown): unknown {
  if (!isPlainObject(body) || !('end_call_tool.description' in body)) return body;
  const { 'end_call_tool.description': description, ...rest } = body;
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
    path: '/user/assistants/voices',
    summary: 'Public voices and the account’s own, of one engine mode',
    query: ['mode'],
    document: `query Voices($mode: String) { voices(mode: $mode) { id name mode } }`,
    variables: (req) => ({ mode: req.query.get('mode') || undefined }),
    respond: (data) => ({ body: data.voices }),
  },
  ...['/user/assistants/get', '/user/assistants'].map(
    (path): Route => ({
      method: 'GET',
      path,
      summary: 'List the account’s assistants, whole',
      document: `query Assistants { assistants { ...AssistantFields } } ${ASSISTANT_FIELDS}`,
      variables: () => ({}),
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
    document: `mutation CreateAssistant($input: CreateAssistantInput!) { createAssistant(input: $input) { id name status type mode } }`,
    variables: (req) => ({ input: assistantInput(req.body) }),
    respond: (data) => ({ body: { message: Messages.assistantCreated, data: data.createAssistant } }),
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
      updateAssistant(id: $id, input: $input) { id name status type mode }
    }`,
    variables: (req) => ({ id: req.params.id, input: assistantInput(req.body) }),
    respond: (data) => ({ body: { message: Messages.assistantUpdated, data: data.updateAssistant } }),
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
  { ...disableWebhook, path: '/user/assistants/disable-webhook' },
  // Existing clients of the original platform call this name for the same operation.
  { ...disableWebhook, path: '/user/assistants/disable-inbound-webhook' },
];
