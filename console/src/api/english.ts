/**
 * The console's one English catalogue. The API speaks the spec's Portuguese (its REST
 * contract); the console says the same things in English by what the API gives it to key on:
 * an error's `extensions.code`, the field a message is about, and the field rule a message is
 * an instance of (the API's catalogue has one template per rule, so its wording identifies
 * the rule, as in the operator CLI's src/cli/english.ts). Anything this catalogue does not
 * know is shown as the API said it, never dropped.
 */

/** A general sentence per extensions.code, for refusals that carry no field. */
const BY_CODE: Record<string, string> = {
  UNAUTHENTICATED: 'This token is not valid: it was mistyped, revoked, or belongs to another server.',
  NOT_FOUND: 'Not found: it was deleted, or belongs to another account.',
  VALIDATION_FAILED: 'Some fields need a change: see the messages beside them.',
  BAD_USER_INPUT: 'Some fields need a change: see the messages beside them.',
  PLAN_LIMIT: 'Your plan’s limit is reached.',
  INSUFFICIENT_BALANCE: 'The balance is too low: add credit to the account first.',
  FORBIDDEN: 'This account may not do that.',
  CONFLICT: 'That cannot be done in the record’s current state.',
  PROVIDER_FAILURE: 'The telephony or voice provider refused or failed; try again in a moment.',
  UNAVAILABLE: 'The server is briefly unavailable; try again in a moment.',
  INTERNAL: 'The server failed on its side; try again, and tell its operator if it goes on.',
  PAYLOAD_TOO_LARGE: 'That is larger than this server accepts.',
  RATE_LIMITED: 'Too many requests: wait a few seconds and try again.',
  BAD_REQUEST: 'The server could not read the request.',
  GRAPHQL_VALIDATION_FAILED: 'The console and the server disagree on the API (reload the page after an upgrade).',
  GRAPHQL_PARSE_FAILED: 'The console and the server disagree on the API (reload the page after an upgrade).',
};

/**
 * Messages whose wording says more than their code (the number of a limit, which call):
 * the API's text (a regular expression over it) and the English, with the captured numbers.
 */
const BY_MESSAGE: [RegExp, (...captured: string[]) => string][] = [
  [/limite de (\d+) ferramentas/, (limit) => `Your plan allows ${limit} mid-call tools: delete one, or upgrade the plan.`],
  [/limite de (\d+) chamadas simultâneas/, (limit) => `Your plan allows ${limit} calls at once: wait for one to end.`],
  [/limite de (\d+) endpoints de webhook/, (limit) => `The account may have ${limit} webhook endpoints: delete one first.`],
  [/Tente novamente em (\d+) segundo/, (seconds) => `Too many requests: try again in ${seconds} s.`],
  [/^Saldo insuficiente/, () => BY_CODE.INSUFFICIENT_BALANCE],
  [/^Campanha não encontrada/, () => 'No such campaign in this account.'],
  [/^Assistente não encontrado/, () => 'No such assistant in this account.'],
  [/^Chamada não encontrada/, () => 'No such call in this account.'],
  [/^Ferramenta não encontrada/, () => 'No such tool in this account.'],
  [/^Lead não encontrado/, () => 'No such lead in this account.'],
  [/A campanha está em andamento/, () => 'The campaign is running: stop it before deleting it.'],
  [/A campanha ainda tem chamadas em andamento/, () => 'The campaign still has calls in progress: try again when they end.'],
  [/A chamada ainda está em andamento/, () => 'The call is still in progress: it can be deleted once it ends.'],
  [/^A chamada já terminou/, () => 'The call has already ended.'],
  [/Idempotency-Key já foi usada/, () => 'This Idempotency-Key was already used for another request.'],
  [/A importação falhou por um erro interno/, () => 'The import stopped on a server error; the rows already imported were kept.'],
];

/** Field names as a person reads them, where the name alone would not do. */
const FIELD_LABELS: Record<string, string> = {
  phone_number: 'Phone number',
  assistant_id: 'Assistant',
  campaign_id: 'Campaign',
  voice_id: 'Voice',
  fallback_voice_id: 'Fallback voice',
  language_id: 'Language',
  tool_ids: 'Tools',
  phone_number_ids: 'Phone numbers',
  url: 'URL',
  webhook_url: 'Webhook URL',
  endpoint: 'Endpoint',
  csv: 'The file',
  file: 'The file',
  allowed_hours_start_time: 'Start time',
  allowed_hours_end_time: 'End time',
  max_call_duration: 'Maximum call duration',
  variables: 'Variables',
  schema: 'Parameters',
};

/** One item of a list field, where the list's name is a plural. */
const ITEM_LABELS: Record<string, string> = {
  schema: 'Parameter',
  headers: 'Header',
  secondary_contacts: 'Secondary contact',
  post_call_schema: 'Post-call variable',
  keyterms: 'Key term',
  fallback_models: 'Fallback model',
  backchannel_words: 'Acknowledgement',
  pronunciations: 'Pronunciation',
  transfer_numbers: 'Transfer number',
};

/** `name` -> "Name"; `secondary_contacts.0.phone_number` -> "Secondary contact 1 phone number". */
export function fieldLabel(field: string): string {
  if (FIELD_LABELS[field]) return FIELD_LABELS[field];
  const parts = field.split('.');
  const words = parts
    .map((part, index) =>
      /^\d+$/.test(part) ? String(Number(part) + 1) : /^\d+$/.test(parts[index + 1] ?? '') && ITEM_LABELS[part] ? ITEM_LABELS[part] : (FIELD_LABELS[part] ?? part.replace(/_/g, ' ')),
    )
    .join(' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The API's field rules, by the wording of each one's template (src/errors.ts FieldMessages),
 * and what each says in English of the field's label. `$1`, `$2` are the template's other values.
 */
const FIELD_RULES: [RegExp, (label: string, ...values: string[]) => string][] = [
  [/ é obrigatório\.$/, (label) => `${label} is required.`],
  [/ deve ser um número inteiro\.$/, (label) => `${label} must be a whole number.`],
  [/ deve ser um número\.$/, (label) => `${label} must be a number.`],
  [/ deve ser uma string\.$/, (label) => `${label} must be text.`],
  [/ deve ser verdadeiro ou falso\.$/, (label) => `${label} must be true or false.`],
  [/ deve ser um objeto\.$/, (label) => `${label} must be a JSON object.`],
  [/ deve ser uma lista\.$/, (label) => `${label} must be a list.`],
  [/ deve ser pelo menos (\S+)\.$/, (label, min) => `${label} must be at least ${min}.`],
  [/ deve estar entre (\S+) e (\S+)\.$/, (label, min, max) => `${label} must be between ${min} and ${max}.`],
  [/ não pode ser superior a (\d+) caracteres\.$/, (label, max) => `${label} must be at most ${max} characters.`],
  [/ deve ter entre (\d+) e (\d+) caracteres\.$/, (label, min, max) => `${label} must be ${min} to ${max} characters.`],
  [/ não pode ter mais de (\d+) itens\.$/, (label, max) => `${label} may have at most ${max} items.`],
  [/ tem um valor duplicado\.$/, (label) => `${label} has a value twice.`],
  [/ deve ser uma URL válida/, (label) => `${label} must be an http or https URL.`],
  [/ aponta para um endereço interno/, (label) => `${label} points to an internal address (private, loopback or reserved), which the service does not call; use a public one.`],
  [/^O \S+ selecionado é inválido\.$/, (label) => `${label}: the one chosen does not exist in this account.`],
  [/ deve ser um fuso horário válido/, (label) => `${label} must be an IANA time zone such as America/Sao_Paulo.`],
  [/ webhook_url é obrigatório quando/, () => 'Webhook URL is required while the webhook is on.'],
  [/não é compatível com o engine_type (\S+)\.$/, (_label, engine) => `That voice does not work with the ${engine} engine.`],
  [/^O idioma selecionado é inválido/, () => 'That language is not in the list.'],
  [/ deve começar com uma letra e conter apenas letras e underscores/, (label) => `${label} must start with a letter and hold only letters and underscores (_).`],
  [/ deve conter apenas letras minúsculas e underscores/, (label) => `${label} must hold only lowercase letters and underscores (_), starting with a letter.`],
  [/ deve conter apenas letras, números e underscores/, (label) => `${label} must hold only letters, digits and underscores (_).`],
  [/ deve ser um nome de cabeçalho HTTP válido\.$/, (label) => `${label} must be a valid HTTP header name.`],
  [/^O cabeçalho (\S+) .* é controlado pela plataforma/, (_label, name) => `The ${name} header is set by the platform and cannot be set here.`],
  [/ deve ser uma lista não vazia de tipos de evento/, (label) => `${label} must list at least one event type of the catalogue.`],
  [/ não pode conter quebras de linha ou caracteres de controle\.$/, (label) => `${label} may not contain line breaks or control characters.`],
  [/ deve ser um dos seguintes valores: (.+)\.$/, (label, values) => `${label} must be one of: ${values}.`],
  [/ deve ser uma data válida no formato AAAA-MM-DD\.$/, (label) => `${label} must be a date, YYYY-MM-DD.`],
  [/ deve ser uma data posterior ou igual a (\S+)\.$/, (label, other) => `${label} must be on or after ${fieldLabel(other).toLowerCase()}.`],
  [/ deve ser um número de telefone válido/, (label) => `${label} must be a valid phone number in international form (+5511987654321).`],
  [/ não tem código de país e este servidor não tem DEFAULT_PHONE_REGION/, (label) => `${label} has no country code, and this server has no DEFAULT_PHONE_REGION: write it as +5511987654321.`],
  [/ não é permitido\.(?: Você quis dizer (\S+)\?)?$/, (label, suggestion) => `${label} is not a field here${suggestion ? `: did you mean ${suggestion}?` : '.'}`],
  [/^A campanha selecionada não existe\.$/, () => 'That campaign does not exist.'],
  [/^O status é atribuído automaticamente/, () => 'The status is set automatically and cannot be set by hand.'],
  [/^Já existe um lead com este número de telefone nesta campanha\.$/, () => 'This campaign already has a lead with this phone number.'],
  [/^Este número está na lista de não ligar/, () => 'This number is on the account’s do-not-call list.'],
  [/ deve ser um horário no formato HH:MM/, (label) => `${label} must be a time, HH:MM (24 h).`],
  [/^O campo goal_completion_variable deve ser um nome do post_call_schema/, () => 'The goal variable must be one of the assistant’s post-call variables.'],
  [/^O campo goal_completion_variable é obrigatório quando/, () => 'Choose a goal variable when retrying calls whose goal was not met.'],
  [/^A campanha precisa de um assistente de saída/, () => 'The campaign needs an outbound assistant with a phone number before it can start.'],
  [/^O assistente selecionado não faz chamadas de saída/, () => 'That assistant does not make outbound calls (its calls direction must be make).'],
  [/^O assistente selecionado não tem um número de telefone\.$/, () => 'That assistant has no phone number.'],
  [/^Nenhum assistente de entrada/, () => 'No inbound assistant answers this number.'],
  [/ contém caracteres não permitidos/, (label) => `${label} contains characters that cannot be stored (NUL or broken UTF-16).`],
  [/ não pode ter mais de (\d+) níveis de aninhamento\.$/, (label, max) => `${label} may not nest more than ${max} levels deep.`],
  [/^O arquivo \S+ não pode ter mais de (\d+) bytes\.$/, (_label, max) => `The file may be at most ${Number(max).toLocaleString('en-US')} bytes.`],
  [/^O arquivo \S+ deve ser um CSV codificado em UTF-8\.$/, () => 'The file must be a CSV file in UTF-8.'],
  [/^O arquivo \S+ não pode ter mais de (\d+) linhas de dados\.$/, (_label, max) => `The file may have at most ${Number(max).toLocaleString('en-US')} rows.`],
  [/^O arquivo \S+ não tem linhas de dados/, () => 'The file has no rows after its header.'],
  [/^O cabeçalho do arquivo \S+ não pode ter colunas repetidas\.$/, () => 'The file’s header names a column twice.'],
  [/^O arquivo não tem coluna de telefone/, () => 'The file has no phone column: choose which column holds the phone number.'],
  [/^A linha não é um registro CSV válido/, () => 'The line is not a valid CSV record (a quote opened and never closed).'],
  [/^A linha tem (\d+) colunas; o cabeçalho tem (\d+)\.$/, (_label, got, expected) => `The line has ${got} columns; the header has ${expected}.`],
  [/^A coluna (.+) não existe no cabeçalho do arquivo\.$/, (_label, column) => `The file has no column ${column}.`],
  [/^O destino da coluna (.+) deve ser/, (_label, column) => `Column ${column} must go to the phone number, a variable, or nowhere.`],
  [/^Só uma coluna pode ir para (\S+)\.$/, () => 'Only one column can hold the phone number.'],
  [/^O contato secundário (\d+) tem variáveis mas nenhuma coluna/, (_label, index) => `Secondary contact ${index} has variables but no phone number column.`],
  [/^Os campos (\S+) e (\S+) são o mesmo campo/, (_label, one, other) => `${one} and ${other} are the same field, sent with different values.`],
  [/^O webhook do assistente está desativado/, () => 'The assistant’s webhook is off: turn it on before sending again.'],
  [/^A Idempotency-Key deve ter/, () => 'The Idempotency-Key must be 1 to 255 visible characters.'],
  [/^O campo country_code deve ser um código de país ISO/, () => 'Country must be a two-letter ISO code (BR, US, DE).'],
  [/^O campo contains deve ter de 2 a 16 dígitos\.$/, () => 'Contains must be 2 to 16 digits.'],
  [/^Este número já pertence a uma conta deste serviço\.$/, () => 'This number already belongs to an account of this service.'],
  [/^O provedor de telefonia recusou a compra deste número: (.*)$/, (_label, detail) => `The telephony provider refused to sell this number: ${detail}`],
  [/^O campo to deve ser posterior a from\.$/, () => 'The period must end after it starts.'],
  [/^Com bucket (\S+), o período pode ter no máximo (\d+) dias\.$/, (_label, bucket, days) => `By ${bucket}, a period may be at most ${days} days long.`],
];

/** One of the API's field messages in English, about `field` (as the API names it). */
export function fieldMessage(field: string | null | undefined, message: string): string {
  const label = field ? fieldLabel(field) : 'This value';
  for (const [pattern, english] of FIELD_RULES) {
    const match = pattern.exec(message);
    if (match) return english(label, ...match.slice(1));
  }
  const names = message.match(ENV_NAMES);
  return names ? voiceMissingMessage([...new Set(names)]) : message;
}

/** The server lacks the environment variables an assistant's voice engine needs (Assistant.voice_missing). */
export function voiceMissingMessage(names: readonly string[]): string {
  return `This server lacks ${names.join(', ')}, which this assistant’s voice engine needs: no call can start until its operator sets ${names.length > 1 ? 'them' : 'it'} and restarts the server.`;
}

/** Environment variables named in a refusal (the web call's, when keys are missing): OPENAI_API_KEY, TWILIO_AUTH_TOKEN. */
const ENV_NAMES = /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:KEY|TOKEN|SECRET|SID)\b/g;

/** A refusal with no field in English: by its wording where that says more, else by its code. */
export function errorMessage(code: string | undefined, message: string): string {
  const names = message.match(ENV_NAMES);
  if (names) return voiceMissingMessage([...new Set(names)]);
  for (const [pattern, english] of BY_MESSAGE) {
    const match = pattern.exec(message);
    if (match) return english(...match.slice(1));
  }
  if (code && BY_CODE[code]) return BY_CODE[code];
  return message;
}

/** graphql-js's coercion messages for a variable, in English of the field they name. */
export function coercionMessage(field: string, detail: string): string {
  const label = fieldLabel(field);
  if (/of required type .* was not provided|found null/.test(detail)) return `${label} is required.`;
  if (/^Int cannot represent/.test(detail)) return `${label} must be a whole number.`;
  if (/^Float cannot represent/.test(detail)) return `${label} must be a number.`;
  if (/^String cannot represent/.test(detail)) return `${label} must be text.`;
  if (/^Boolean cannot represent/.test(detail)) return `${label} must be true or false.`;
  if (/is not defined by type/.test(detail)) return `${label} is not a field here.`;
  if (/Expected type .* to be an object/.test(detail)) return `${label} must be a JSON object.`;
  return `${label} is not valid.`;
}

/** The transcript's speakers: the API's Portuguese names, by role. */
export const SPEAKERS = { assistant: 'Assistant', customer: 'Caller', system: 'System' } as const;

/** Why vozgate ended a call (Call.hangup_reason), as a sentence. */
export const HANGUP_REASONS: Record<string, string> = {
  api: 'Ended through the API.',
  'end-call-tool': 'The assistant ended the call.',
  transferred: 'The assistant transferred the call to a person.',
  'time-limit': 'Ended by the platform: the maximum call duration was reached.',
  silence: 'Ended: the caller did not answer.',
  voicemail: 'Voicemail detected: the call was ended.',
  'voicemail-message': 'Voicemail detected: the voicemail message was left.',
  unavailable: 'Ended: a carrier message (the phone off, out of coverage or the number not in service).',
  'media-lost': 'Ended: the audio connection dropped.',
  'engine-failed': 'Ended: the voice engine failed.',
  'stt-failed': 'Ended: speech recognition failed.',
  'llm-failed': 'Ended: the language model failed.',
  'tts-failed': 'Ended: speech synthesis failed.',
  customer: 'The caller hung up.',
};

/** The system lines the API writes into a transcript (their Portuguese), in English. */
const SYSTEM_LINES: [RegExp, (...captured: string[]) => string][] = [
  [/^Chamada encerrada pela API\.$/, () => HANGUP_REASONS.api],
  [/^O assistente encerrou a chamada\.$/, () => HANGUP_REASONS['end-call-tool']],
  [/^Chamada transferida pelo assistente\.$/, () => HANGUP_REASONS.transferred],
  [/^Chamada encerrada pela plataforma: tempo máximo excedido\.$/, () => HANGUP_REASONS['time-limit']],
  [/^Chamada encerrada: o cliente não respondeu\.$/, () => HANGUP_REASONS.silence],
  [/^Caixa postal detectada: mensagem deixada/, () => HANGUP_REASONS['voicemail-message']],
  [/^Caixa postal detectada/, () => HANGUP_REASONS.voicemail],
  [/^Chamada encerrada: mensagem da operadora/, () => HANGUP_REASONS.unavailable],
  [/^Chamada encerrada: a conexão de áudio caiu\.$/, () => HANGUP_REASONS['media-lost']],
  [/^Chamada encerrada: o motor de voz falhou\.$/, () => HANGUP_REASONS['engine-failed']],
  [/^Chamada encerrada: o reconhecimento de fala falhou\.$/, () => HANGUP_REASONS['stt-failed']],
  [/^Chamada encerrada: o modelo de linguagem falhou\.$/, () => HANGUP_REASONS['llm-failed']],
  [/^Chamada encerrada: a síntese de voz falhou\.$/, () => HANGUP_REASONS['tts-failed']],
  [/^O cliente encerrou a chamada\.$/, () => HANGUP_REASONS.customer],
  [/^end_call: conversa concluída$/, () => 'end_call: conversation finished'],
  [/^Busca na base de conhecimento sem resposta antes do fim da chamada\.$/, () => 'The knowledge base was searched, and the call ended before an answer.'],
];

export function systemLine(text: string): string {
  for (const [pattern, english] of SYSTEM_LINES) {
    const match = pattern.exec(text);
    if (match) return english(...match.slice(1));
  }
  return text;
}

/** The webhook endpoint's warning on creation (its one warning: an internal address). */
export function warningMessage(text: string): string {
  return /endereço interno/.test(text)
    ? 'The URL points to an internal address (private, loopback or reserved): deliveries to it fail unless the server runs with ALLOW_PRIVATE_NETWORK_TARGETS=true (for development only).'
    : text;
}
