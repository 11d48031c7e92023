import type { ConsoleAssistantChoicesQuery } from '../../gql/graphql';
import type { FieldSpec } from '../../ui/form';

const options = (values: string[]) => values.map((value) => ({ value, label: value }));

/** Every field of the assistant's input, grouped as the editor shows them. */
export function assistantSections(choices: ConsoleAssistantChoicesQuery, engine: string, assistantId: number | null): { title: string; fields: FieldSpec[] }[] {
  const mode = engine === 'multimodal' ? 'multimodal' : 'pipeline';
  return [
    {
      title: 'Identity',
      fields: [
        { name: 'assistant_name', label: 'Name', kind: 'text', required: true },
        { name: 'calls_direction', label: 'Direction', kind: 'select', choices: [{ value: 'receive', label: 'Receives calls (inbound)' }, { value: 'make', label: 'Makes calls (outbound)' }] },
        { name: 'engine_type', label: 'Engine', kind: 'select', choices: [{ value: 'pipeline', label: 'Pipeline (STT → LLM → TTS)' }, { value: 'multimodal', label: 'Multimodal (speech to speech)' }] },
        {
          name: 'phone_number_id',
          label: 'Phone number',
          kind: 'select',
          optional: true,
          choices: choices.phoneNumbers
            .filter((number) => number.assistant_id === null || number.assistant_id === assistantId)
            .map((number) => ({ value: String(number.id), label: number.phone_number })),
        },
        { name: 'timezone', label: 'Time zone', kind: 'text', required: true, hint: 'IANA Area/City, e.g. America/Sao_Paulo.' },
        { name: 'language', label: 'Language', kind: 'select', choices: choices.languages.map((language) => ({ value: language.name, label: language.name })) },
      ],
    },
    {
      title: 'Voice and model',
      fields: [
        {
          name: 'voice_id',
          label: 'Voice',
          kind: 'select',
          hint: `Voices of the ${mode} engine, with the vendor that speaks each.`,
          choices: choices.voices
            .filter((voice) => voice.mode === mode)
            .map((voice) => ({ value: String(voice.id), label: `${voice.name} · ${voice.provider ?? 'default vendor'}` })),
        },
        {
          name: 'fallback_voice_id',
          label: 'Fallback voice',
          kind: 'select',
          optional: true,
          hint: 'Pipeline calls: speaks the rest of the call when the voice’s vendor fails. None: the next configured vendor’s default voice.',
          choices: choices.voices
            .filter((voice) => voice.mode === 'pipeline' && voice.provider !== null)
            .map((voice) => ({ value: String(voice.id), label: `${voice.name} · ${voice.provider}` })),
        },
        {
          name: 'llm_model',
          label: 'Model',
          kind: 'select',
          choices: choices.models.filter((model) => model.type === (mode === 'multimodal' ? 'multimodal' : 'llm')).map((model) => ({ value: model.name, label: `${model.name} · ${model.provider}` })),
        },
        {
          name: 'transcriber',
          label: 'Transcriber',
          kind: 'select',
          hint: 'Who hears the caller (pipeline): Deepgram streams; the others are given each turn whole once it ends (OpenAI’s when Deepgram has no key here).',
          choices: [
            { value: 'deepgram', label: 'Deepgram' },
            ...choices.transcriberProviders.filter((provider) => provider.code !== 'deepgram').map((provider) => ({ value: provider.code, label: provider.name })),
          ],
        },
        { name: 'llm_temperature', label: 'Temperature', kind: 'decimal', min: 0, max: 1, step: 0.1, hint: '0 to 1.' },
        { name: 'speech_speed', label: 'Speech speed', kind: 'decimal', min: 0.7, max: 1.2, step: 0.05, hint: '0.7 to 1.2.' },
        { name: 'voice_stability', label: 'Voice stability', kind: 'decimal', min: 0, max: 1, step: 0.05, hint: '0 to 1.' },
        { name: 'voice_similarity', label: 'Voice similarity', kind: 'decimal', min: 0, max: 1, step: 0.05, hint: '0 to 1.' },
      ],
    },
    {
      title: 'Conversation',
      fields: [
        { name: 'who_speaks_first', label: 'Who speaks first', kind: 'select', choices: options(['AI assistant', 'Customer']) },
        { name: 'initial_message', label: 'First message', kind: 'textarea', wide: true, required: true },
        { name: 'system_prompt', label: 'System prompt', kind: 'textarea', wide: true, required: true, hint: 'Behaviour and personality; {{variables}} are filled in per call.' },
        { name: 'variables', label: 'Default variables', kind: 'json', wide: true, hint: 'JSON object.' },
        {
          name: 'tool_ids',
          label: 'Tools',
          kind: 'checkboxes',
          wide: true,
          hint: 'Mid-call tools of the account the assistant may use.',
          choices: choices.tools.map((tool) => ({ value: String(tool.id), label: `${tool.name} — ${tool.description}` })),
        },
        { name: 'end_call_tool_description', label: 'When to hang up', kind: 'textarea', wide: true, optional: true, hint: 'The end-call tool’s description; at most 500 characters.' },
        {
          name: 'pronunciations',
          label: 'Pronunciations',
          kind: 'json',
          list: true,
          wide: true,
          hint: 'JSON list of {"word", "say_as"}: the whole word, in any case, is spoken as say_as (at most 100).',
        },
      ],
    },
    {
      title: 'Transfers',
      fields: [
        {
          name: 'transfer_numbers',
          label: 'Transfer to',
          kind: 'json',
          list: true,
          wide: true,
          hint: 'JSON list of {"number", "description"} (at most 10): where the assistant may hand a phone call to a person, and when. Empty: it never transfers.',
        },
        { name: 'transfer_mode', label: 'Transfer mode', kind: 'select', choices: [{ value: 'cold', label: 'Cold: straight to the number' }, { value: 'warm', label: 'Warm: brief the person first' }] },
        { name: 'transfer_message', label: 'Said before a transfer', kind: 'textarea', wide: true, optional: true, hint: 'As written; empty: the model says it in its own words. At most 500 characters.' },
      ],
    },
    {
      title: 'Timing and listening',
      fields: [
        { name: 'max_call_duration', label: 'Longest call (s)', kind: 'integer', min: 20, max: 1200, hint: '20 to 1200.' },
        { name: 'max_silence_duration', label: 'Longest silence (s)', kind: 'integer', min: 1, max: 120, hint: '1 to 120.' },
        { name: 're_engagement_interval', label: 'Re-engage after (s)', kind: 'integer', min: 7, max: 600, hint: '7 to 600.' },
        { name: 'endpoint_type', label: 'End of speech', kind: 'select', choices: [{ value: 'vad', label: 'Voice activity (vad)' }, { value: 'ai', label: 'Model (ai)' }] },
        { name: 'endpoint_sensitivity', label: 'End-of-speech sensitivity', kind: 'decimal', min: 0, max: 5, hint: '0 to 5.' },
        { name: 'interrupt_sensitivity', label: 'Interruption sensitivity', kind: 'decimal', min: 0, max: 5, hint: '0 to 5.' },
        { name: 'min_interrupt_words', label: 'Words to interrupt', kind: 'integer', min: 0, max: 10, hint: '0 to 10.' },
        {
          name: 'false_interruption_timeout_ms',
          label: 'Resume after a false interruption (ms)',
          kind: 'integer',
          min: 0,
          max: 10000,
          hint: '0 to 10000: how long a reply paused by a noise waits for a word before it speaks again; 0 stops it instead.',
        },
        { name: 'fallback_models', label: 'Fallback models', kind: 'lines', wide: true, hint: 'One a line (at most 3): models of the catalogue tried in order when the model fails before it answers (after one retry).' },
        { name: 'keyterms', label: 'Key terms', kind: 'lines', wide: true, hint: 'One a line (at most 50): names and words the transcriber should expect; {{variables}} are filled in per call.' },
        {
          name: 'backchannel_words',
          label: 'Acknowledgements',
          kind: 'lines',
          optional: true,
          wide: true,
          hint: 'One a line (at most 50): words that never interrupt the assistant. Empty: the language’s own (aham, sim, okay…).',
        },
        { name: 'ambient_sound_volume', label: 'Ambient sound volume', kind: 'decimal', min: 0, max: 1, hint: '0 to 1.' },
        { name: 'allow_interruptions', label: 'Callers may interrupt', kind: 'checkbox' },
        { name: 'use_min_interrupt_words', label: 'Only interrupt after some words', kind: 'checkbox' },
        { name: 'noise_cancellation', label: 'Noise cancellation', kind: 'checkbox' },
        { name: 'filler_audios', label: 'Filler sounds while thinking', kind: 'checkbox' },
        { name: 'end_call_on_voicemail', label: 'Hang up on voicemail', kind: 'checkbox' },
        { name: 'record_call', label: 'Record calls', kind: 'checkbox' },
        {
          name: 'voicemail_message',
          label: 'Voicemail message',
          kind: 'textarea',
          wide: true,
          optional: true,
          hint: 'Outbound calls: left on a mailbox after its beep, then the call ends; at most 1000 characters, {{variables}} filled in per call. Empty: “Hang up on voicemail” decides.',
        },
        { name: 'voicemail_beep_timeout_seconds', label: 'Wait for the beep (s)', kind: 'integer', min: 1, max: 60, hint: '1 to 60: then the message is left anyway.' },
      ],
    },
    {
      title: 'After the call',
      fields: [
        { name: 'post_call_schema', label: 'Values to extract', kind: 'json', list: true, wide: true, hint: 'JSON list of {"name", "type" (string, number, bool), "description"}.' },
        { name: 'post_call_evaluation', label: 'Evaluate calls (sentiment, outcome, score)', kind: 'checkbox' },
        { name: 'is_webhook_active', label: 'Send results to a webhook', kind: 'checkbox' },
        { name: 'webhook_url', label: 'Webhook URL', kind: 'url', optional: true, wide: true },
        { name: 'send_webhook_only_on_completed', label: 'Only completed calls', kind: 'checkbox' },
        { name: 'include_recording_in_webhook', label: 'Include the recording', kind: 'checkbox' },
      ],
    },
  ];
}

/** A new assistant's starting values: the API's defaults for what it does not require. */
export const NEW_ASSISTANT: Record<string, unknown> = {
  assistant_name: '',
  calls_direction: 'make',
  engine_type: 'pipeline',
  phone_number_id: null,
  timezone: 'America/Sao_Paulo',
  language: 'Portuguese',
  voice_id: '',
  llm_model: '',
  llm_temperature: 0.7,
  speech_speed: 1,
  voice_stability: 0.5,
  voice_similarity: 0.75,
  who_speaks_first: 'AI assistant',
  initial_message: '',
  system_prompt: '',
  variables: {},
  tool_ids: [],
  end_call_tool_description: '',
  max_call_duration: 600,
  max_silence_duration: 30,
  re_engagement_interval: 30,
  endpoint_type: 'vad',
  endpoint_sensitivity: 2.5,
  interrupt_sensitivity: 2.5,
  min_interrupt_words: 2,
  false_interruption_timeout_ms: 2000,
  keyterms: [],
  fallback_models: [],
  fallback_voice_id: null,
  transcriber: 'deepgram',
  backchannel_words: null,
  pronunciations: [],
  transfer_numbers: [],
  transfer_mode: 'cold',
  transfer_message: null,
  ambient_sound_volume: 0,
  allow_interruptions: true,
  use_min_interrupt_words: false,
  noise_cancellation: true,
  filler_audios: false,
  end_call_on_voicemail: true,
  record_call: true,
  voicemail_message: null,
  voicemail_beep_timeout_seconds: 20,
  post_call_schema: [],
  post_call_evaluation: false,
  is_webhook_active: false,
  webhook_url: null,
  send_webhook_only_on_completed: false,
  include_recording_in_webhook: false,
};
