/**
 * Domain errors and the catalogue of client-facing messages.
 *
 * Services throw these; the GraphQL layer turns them into errors with `extensions.code`,
 * and the REST shim turns those back into the documented bodies and status codes.
 */

export const Messages = {
  unauthenticated: 'Não autenticado.',
  validationFailed: 'Falha na validação',
  invalidData: 'Os dados fornecidos são inválidos.',
  invalidJson: 'O corpo da requisição não é um JSON válido.',
  unsupportedMediaType: 'O corpo da requisição deve ser JSON (Content-Type: application/json).',
  badRequest: 'Requisição inválida.',
  subscriptionsOverWebSocket: 'Operações subscription são servidas por WebSocket (graphql-ws) em /graphql; use query ou mutation por HTTP.',
  subscriptionsOnly: 'Por WebSocket só são servidas operações subscription; use HTTP para query e mutation.',
  subscriptionsPerConnection: (limit: number) =>
    `Esta conexão atingiu o limite de ${limit} subscriptions abertas. Encerre uma (complete) antes de abrir outra, ou abra outra conexão.`,
  subscriptionsPerAccount: (limit: number) =>
    `Você atingiu o limite de ${limit} subscriptions abertas da conta. Encerre uma (complete) antes de abrir outra.`,
  bodyTooLarge: 'O corpo da requisição excede o tamanho máximo permitido.',
  routeNotFound: 'Rota não encontrada.',
  routeMeant: (route: string) => `Você quis dizer ${route}?`,
  forbidden: 'Acesso negado.',
  methodNotAllowed: 'Método não permitido.',
  internal: 'Erro interno do servidor.',
  unavailable: 'Serviço temporariamente indisponível.',
  overloaded: (seconds: number) =>
    `Este servidor está com carga alta e não aceita novas chamadas agora; as chamadas em andamento continuam. Tente novamente em ${seconds} segundo${seconds === 1 ? '' : 's'}.`,
  bearerMissing: 'O cabeçalho Authorization deve ser "Bearer <token>": o token foi enviado sem a palavra Bearer.',
  rateLimited: (seconds: number) => `Muitas requisições. Tente novamente em ${seconds} segundo${seconds === 1 ? '' : 's'}.`,

  voiceNotReady: (missing: string[]) =>
    `Este servidor não tem o que o motor deste assistente precisa para falar: defina ${missing.join(', ')} no ambiente do servidor e reinicie-o.`,
  leadNotFound: 'Lead não encontrado',
  campaignNotFound: 'Campanha não encontrada',
  campaignRunning: 'A campanha está em andamento; pare-a antes de excluí-la.',
  campaignCallsInFlight: 'A campanha ainda tem chamadas em andamento; tente novamente quando elas terminarem.',
  invalidPhoneNumber: 'Número de telefone inválido',
  invalidFields: (fields: string[]) => `Campos inválidos: ${fields.join(', ')}`,

  toolNotFound: 'Ferramenta não encontrada',
  toolName: 'O nome da ferramenta deve conter apenas letras minúsculas e underscores (_) e começar com uma letra.',
  toolPlanLimit: (limit: number) =>
    `Você atingiu o limite de ${limit} ferramentas de meio de chamada do seu plano. Faça upgrade do seu plano para criar mais ferramentas.`,
  assistantNotFound: 'Assistente não encontrado',
  assistantCreateFailed: 'Falha na criação do assistente',
  assistantUpdateFailed: 'Falha na atualização do assistente',
  // Assistant tests.
  assistantTestNotFound: 'Teste não encontrado',
  assistantTestCreated: 'Teste criado com sucesso',
  assistantTestUpdated: 'Teste atualizado com sucesso',
  assistantTestDeleted: 'Teste excluído com sucesso',
  testRunNotFound: 'Execução de testes não encontrada',
  testRunQueued: 'Execução de testes iniciada: acompanhe-a por GET /user/test-runs/{id} ou pela subscription testRunUpdated.',

  insufficientBalance: 'Saldo insuficiente',
  callNotFound: 'Chamada não encontrada',
  callNotFinished: 'A chamada ainda está em andamento e não pode ser excluída; tente novamente quando ela terminar.',
  callAlreadyEnded: 'A chamada já terminou.',
  hangupFailed: 'O provedor de telefonia não encerrou a chamada.',
  parallelCallLimit: (limit: number) =>
    `Você atingiu o limite de ${limit} chamadas simultâneas do seu plano. Aguarde o término de uma chamada em andamento.`,
  deliveryNotFound: 'Entrega de webhook não encontrada',
  webhookEndpointNotFound: 'Endpoint de webhook não encontrado',
  webhookEndpointPrivate:
    'A URL aponta para um endereço interno (privado, loopback ou reservado): as entregas a ela falharão enquanto o servidor não tiver ALLOW_PRIVATE_NETWORK_TARGETS=true (só para desenvolvimento).',
  toolEndpointPrivate:
    'O endpoint aponta para um endereço interno (privado, loopback ou reservado): as chamadas à ferramenta falharão enquanto o servidor não tiver ALLOW_PRIVATE_NETWORK_TARGETS=true (só para desenvolvimento).',
  webhookEndpointLimit: (limit: number) => `Você atingiu o limite de ${limit} endpoints de webhook da conta.`,
  idempotencyKeyReused: 'Esta Idempotency-Key já foi usada com outra requisição.',
  idempotencyInFlight: 'Uma requisição com esta Idempotency-Key ainda está em andamento; tente novamente.',
  senderNotFound: 'Número de origem não encontrado',
  senderWithoutSms: 'Número de origem não possui capacidade de SMS',
  senderExpired: 'A assinatura do número de origem expirou',
  recipientInvalid: 'Número de destino inválido',
  smsFailed: 'Falha ao enviar SMS',
  smsNotFound: 'SMS não encontrado',
  dncNotFound: 'Número não encontrado na lista de não ligar',
  leadImportNotFound: 'Importação de leads não encontrada',
  leadImportFailed: 'A importação falhou por um erro interno; as linhas já importadas foram mantidas.',
  leadImportsInFlight: (limit: number, seconds: number) =>
    `Você já tem ${limit} importaç${limit === 1 ? 'ão' : 'ões'} de leads em andamento. Tente novamente em ${seconds} segundos, ou quando uma terminar.`,
  knowledgeBaseNotFound: 'Base de conhecimento não encontrada',
  knowledgeDocumentNotFound: 'Documento não encontrado',
  knowledgeBasePlanLimit: (limit: number) =>
    `Você atingiu o limite de ${limit} bases de conhecimento do seu plano. Exclua uma ou faça upgrade do seu plano para criar mais.`,
  knowledgeDocumentPlanLimit: (limit: number) =>
    `Esta base de conhecimento atingiu o limite de ${limit} documentos do seu plano. Exclua um ou faça upgrade do seu plano para adicionar mais.`,
  folderNotFound: 'Pasta não encontrada',
  labelNotFound: 'Etiqueta não encontrada',
  tokenNotFound: 'Token não encontrado',
  conversationNotFound: 'Conversa não encontrada',
  conversationClosed: 'A conversa foi encerrada e não recebe mais mensagens.',
  conversationModelFailed: 'O modelo do assistente não respondeu. A mensagem foi guardada sem resposta; envie-a de novo para tentar outra vez.',
  conversationPlanLimit: (limit: number) =>
    `Você atingiu o limite de ${limit} conversas abertas do seu plano. Encerre algumas (POST /conversations/{uuid}/close) ou faça upgrade do seu plano para abrir mais.`,
  conversationTooFast: (limit: number, seconds: number) =>
    `Esta conversa recebeu ${limit} mensagens no último minuto, o limite. Tente de novo em ${seconds} segundos.`,
  conversationCannotSend: (channel: string) =>
    `O assistente desta conversa não tem um número que envie ${channel === 'sms' ? 'SMS' : 'WhatsApp'} (ativo e com a assinatura em dia): a mensagem não foi enviada.`,
  conversationFailed: 'O provedor recusou o envio da mensagem ao cliente. A mensagem ficou na conversa e o valor foi devolvido ao saldo.',
  conversationReplying: 'A resposta à mensagem anterior desta conversa ainda está sendo escrita. Tente de novo em alguns segundos.',
  conversationModelMissing:
    'Este servidor não tem um modelo de linguagem para responder conversas: defina OPENAI_API_KEY (ou o provedor do modelo do assistente em LLM_PROVIDERS) e reinicie-o.',
  /** The text sent once to a customer who opted out by text (STOP), and to one who opted in again (START). */
  smsOptedOut: 'Você não receberá mais mensagens deste número. Responda START para voltar a recebê-las.',
  smsOptedIn: 'Você voltará a receber mensagens deste número. Responda STOP para não recebê-las mais.',
  whatsappSenderNotFound: 'Remetente de WhatsApp não encontrado',
  whatsappTemplateNotFound: 'Modelo de WhatsApp não encontrado: liste os modelos do remetente (GET /user/whatsapp/senders/{id}/templates) para obter seus ids.',
  whatsappTemplatesFailed: 'Não foi possível obter os modelos de WhatsApp do provedor',
  whatsappFailed: 'Falha ao enviar a mensagem de WhatsApp',
  whatsappWindowClosed:
    'A janela de 24 horas de atendimento está fechada: o cliente não enviou mensagem a este remetente nas últimas 24 horas. Envie um modelo aprovado (POST /user/whatsapp/send).',
  phoneNumberNotFound: 'Número de telefone não encontrado',
  numberSearchFailed: 'Não foi possível consultar os números disponíveis no provedor de telefonia; tente novamente.',
  numberPurchaseFailed: 'O provedor de telefonia não concluiu a compra; nada foi comprado nem cobrado.',
  numberReleaseFailed: 'O provedor de telefonia não liberou o número; ele continua na conta, tente novamente.',
  simulatorOnly: 'Chamadas recebidas simuladas só existem com o provedor de telefonia simulator.',

  leadCreated: 'Lead created successfully',
  leadUpdated: 'Lead updated successfully',
  leadDeleted: 'Lead deleted successfully',
  campaignCreated: 'Campaign created successfully',
  campaignUpdated: 'Campaign updated successfully',
  campaignDeleted: 'Campaign deleted successfully',
  campaignStarted: 'Campaign started successfully',
  campaignStopped: 'Campaign stopped successfully',
  toolCreated: 'Tool created successfully',
  toolUpdated: 'Tool updated successfully',
  toolDeleted: 'Tool deleted successfully',
  assistantCreated: 'Assistant created successfully',
  assistantUpdated: 'Assistant updated successfully',
  assistantDeleted: 'Assistant deleted successfully',
  webhookEnabled: 'Webhook enabled successfully',
  webhookDisabled: 'Webhook disabled successfully',
  callInitiated: 'Call initiated successfully',
  smsSent: 'SMS sent successfully',
  smsPending: 'SMS handed to the provider; its confirmation is pending',
  callDeleted: 'Call deleted successfully',
  callHungUp: 'Call ending',
  webCallStarted: 'Web call started: connect to its url within the token’s lifetime',
  dncAdded: 'Number added to the do-not-call list',
  leadImportStarted: 'Lead import started',
  dncRemoved: 'Number removed from the do-not-call list',
  webhookEndpointCreated: 'Webhook endpoint created successfully',
  webhookEndpointDeleted: 'Webhook endpoint deleted successfully',
  // The original platform's own words for its knowledge bases.
  knowledgeBaseCreated: 'Knowledgebase created successfully.',
  knowledgeBaseUpdated: 'Knowledgebase updated successfully.',
  knowledgeBaseDeleted: 'Knowledgebase deleted successfully.',
  knowledgeDocumentCreated: 'Document created successfully. Processing will begin shortly.',
  knowledgeDocumentUpdated: 'Document updated successfully.',
  knowledgeDocumentDeleted: 'Document deleted successfully.',
  conversationCreated: 'Conversation created successfully',
  conversationMessageSent: 'Message sent successfully',
  conversationClosedOk: 'Conversation closed successfully',
  conversationEndedWebhookEnabled: 'Conversation ended webhook enabled successfully',
  conversationEndedWebhookDisabled: 'Conversation ended webhook disabled successfully',
  conversationAiEnabled: 'AI replies enabled for the conversation',
  conversationAiDisabled: 'AI replies disabled for the conversation: a person answers with sender human',
  aiReplyGenerated: 'Reply generated successfully',
  whatsappSent: 'WhatsApp message sent successfully',
  folderCreated: 'Folder created successfully',
  folderUpdated: 'Folder updated successfully',
  folderDeleted: 'Folder deleted successfully',
  labelCreated: 'Label created successfully',
  labelUpdated: 'Label updated successfully',
  labelDeleted: 'Label deleted successfully',
  phoneNumberPurchased: 'Phone number purchased successfully',
  phoneNumberUpdated: 'Phone number updated successfully',
  phoneNumberReleased: 'Phone number released successfully',
  sipTrunkCreated: 'SIP trunk created successfully',
  sipTrunkUpdated: 'SIP trunk updated successfully',
  sipTrunkNotFound: 'Tronco SIP não encontrado',
  sipProvisioningFailed: 'O provedor de telefonia não configurou o acesso do tronco SIP; nada foi alterado, tente novamente.',
  sipReleaseFailed: 'O provedor de telefonia não removeu o acesso do tronco SIP; ele continua na conta, tente novamente.',
  knowledgeDocumentReingesting: 'Document queued for processing. Its chunks are replaced once it is read again.',

  // The engine API's bounds (src/voice/engine.api.ts).
  engineGraceOver: (seconds: number) => `A chamada terminou há mais de ${seconds} segundos; o engine não pode mais consultá-la nem alterá-la.`,
  engineTooManyTurns: (max: number) => `A chamada já tem o máximo de ${max} falas; esta não foi registrada.`,
  engineTranscriptTooLong: (max: number) => `As falas da chamada passariam de ${max} caracteres; esta não foi registrada.`,
} as const;

/** Per-field messages, in the wording Laravel's pt-BR validator uses, keyed by the spec's field names. */
export const FieldMessages = {
  required: (field: string) => `O campo ${field} é obrigatório.`,
  integer: (field: string) => `O campo ${field} deve ser um número inteiro.`,
  number: (field: string) => `O campo ${field} deve ser um número.`,
  string: (field: string) => `O campo ${field} deve ser uma string.`,
  boolean: (field: string) => `O campo ${field} deve ser verdadeiro ou falso.`,
  object: (field: string) => `O campo ${field} deve ser um objeto.`,
  list: (field: string) => `O campo ${field} deve ser uma lista.`,
  min: (field: string, min: number) => `O campo ${field} deve ser pelo menos ${min}.`,
  between: (field: string, min: number, max: number) => `O campo ${field} deve estar entre ${min} e ${max}.`,
  maxLength: (field: string, max: number) => `O campo ${field} não pode ser superior a ${max} caracteres.`,
  lengthBetween: (field: string, min: number, max: number) => `O campo ${field} deve ter entre ${min} e ${max} caracteres.`,
  maxItems: (field: string, max: number) => `O campo ${field} não pode ter mais de ${max} itens.`,
  distinct: (field: string) => `O campo ${field} tem um valor duplicado.`,
  url: (field: string) => `O campo ${field} deve ser uma URL válida (http ou https).`,
  privateUrl: (field: string) =>
    `O campo ${field} aponta para um endereço interno (privado, loopback ou reservado), que o serviço não chama; use um endereço público.`,
  invalidSelection: (field: string) => `O ${field} selecionado é inválido.`,
  taken: (field: string) => `O campo ${field} já está sendo utilizado.`,
  timezone: (field: string) => `O campo ${field} deve ser um fuso horário válido no formato Área/Cidade (por exemplo America/Sao_Paulo).`,
  requiredWhenWebhookActive: 'O campo webhook_url é obrigatório quando is_webhook_active é verdadeiro.',
  knowledgeBaseModeMultimodal: 'O knowledgebase_mode prompt só está disponível para assistentes pipeline; assistentes multimodal usam function_call.',
  voiceEngineMismatch: (engine: string) => `A voz selecionada não é compatível com o engine_type ${engine}.`,
  language: 'O idioma selecionado é inválido; use o campo name da lista de idiomas.',
  toolParameterName: (field: string) => `O campo ${field} deve começar com uma letra e conter apenas letras e underscores (_).`,
  postCallName: (field: string) => `O campo ${field} deve conter apenas letras, números e underscores (_).`,
  headerName: (field: string) => `O campo ${field} deve ser um nome de cabeçalho HTTP válido.`,
  headerReserved: (field: string, name: string) => `O cabeçalho ${name} (${field}) é controlado pela plataforma e não pode ser definido.`,
  webhookInactive: 'O webhook do assistente está desativado; ative-o antes de reenviar.',
  endpointDisabled: 'O endpoint de webhook foi desativado (respondeu 410); crie-o de novo para receber eventos.',
  webhookEvents: (field: string) => `O campo ${field} deve ser uma lista não vazia de tipos de evento do catálogo.`,
  idempotencyKey: 'A Idempotency-Key deve ter de 1 a 255 caracteres visíveis.',
  assistantNotOutbound: 'O assistente selecionado não faz chamadas de saída (calls_direction deve ser make).',
  assistantWithoutPhone: 'O assistente selecionado não tem um número de telefone.',
  noInboundAssistant: 'Nenhum assistente de entrada (calls_direction receive) usa este número.',
  headerValue: (field: string) => `O campo ${field} não pode conter quebras de linha ou caracteres de controle.`,
  oneOf: (field: string, values: readonly string[]) => `O campo ${field} deve ser um dos seguintes valores: ${values.join(', ')}.`,
  date: (field: string) => `O campo ${field} deve ser uma data válida no formato AAAA-MM-DD.`,
  dateAfterOrEqual: (field: string, other: string) => `O campo ${field} deve ser uma data posterior ou igual a ${other}.`,
  phone: (field: string) => `O campo ${field} deve ser um número de telefone válido no formato internacional (E.164).`,
  phoneWithoutRegion: (field: string) =>
    `O campo ${field} não tem código de país e este servidor não tem DEFAULT_PHONE_REGION definido: envie o número no formato internacional (+5511987654321) ou defina DEFAULT_PHONE_REGION (por exemplo BR) no servidor.`,
  notAllowed: (field: string, suggestion: string | null = null) =>
    `O campo ${field} não é permitido.${suggestion ? ` Você quis dizer ${suggestion}?` : ''}`,
  campaignMissing: 'A campanha selecionada não existe.',
  statusAutomatic: 'O status é atribuído automaticamente e não pode ser definido manualmente.',
  duplicateLead: 'Já existe um lead com este número de telefone nesta campanha.',
  doNotCall: 'Este número está na lista de não ligar da conta.',
  time: (field: string) => `O campo ${field} deve ser um horário no formato HH:MM (24 h).`,
  goalVariable: 'O campo goal_completion_variable deve ser um nome do post_call_schema do assistente.',
  goalVariableRequired: 'O campo goal_completion_variable é obrigatório quando retry_on_goal_incomplete é verdadeiro.',
  campaignNeedsAssistant: 'A campanha precisa de um assistente de saída com número de telefone para ser iniciada.',
  action: 'O campo action deve ser start ou stop.',
  unstorableText: (field: string) => `O campo ${field} contém caracteres não permitidos (NUL ou UTF-16 inválido).`,
  sameField: (field: string, other: string) => `Os campos ${field} e ${other} são o mesmo campo e foram enviados com valores diferentes.`,
  tooDeep: (field: string, max: number) => `O campo ${field} não pode ter mais de ${max} níveis de aninhamento.`,
  // Knowledge-base documents.
  fileRequiredForType: (type: string) => `O campo file é obrigatório para documentos do tipo ${type} (envie-o como multipart/form-data).`,
  fileType: (field: string, type: string) => `O arquivo ${field} não é um ${type}.`,
  fileNotText: (field: string) => `O arquivo ${field} deve ser texto codificado em UTF-8 (este parece binário).`,
  contentTooLarge: (field: string, maxBytes: number) => `O campo ${field} não pode ter mais de ${maxBytes} bytes.`,
  urlOrLinks: 'Envie url ou links (ao menos um) para um documento do tipo website.',
  // Conversations.
  conversationChannelLater: (type: string) =>
    `Conversas do tipo ${type} são abertas pela primeira mensagem do cliente, pelo webhook de mensagens do Twilio (POST /telephony/twilio/messaging); pela API, use test, widget ou api.`,
  humanWhileAiOn: 'Mensagens com sender human só são aceitas com a IA da conversa desativada (POST /automate/conversations/{uuid}/disable-ai).',
  whatsappTemplateNotApproved: (status: string) => `O modelo não está aprovado pelo WhatsApp (status ${status}); só modelos aprovados podem ser enviados.`,
  whatsappVariablesMissing: (names: string[]) => `Faltam variáveis do modelo: ${names.join(', ')}.`,
  whatsappVariables: (max: number, length: number) => `O campo variables deve ser um objeto de até ${max} variáveis, cada uma texto ou número de até ${length} caracteres.`,
  // Phone numbers bought through the provider.
  countryCode: 'O campo country_code deve ser um código de país ISO de duas letras (por exemplo BR, US, DE).',
  numberPattern: 'O campo contains deve ter de 2 a 16 dígitos.',
  numberTaken: 'Este número já pertence a uma conta deste serviço.',
  numberUnavailable: (detail: string) => `O provedor de telefonia recusou a compra deste número: ${detail}`,
  numberSearchRefused: (detail: string) => `O provedor de telefonia recusou a busca: ${detail}`,
  // SIP trunks.
  sipAddress: 'O campo sip_address deve ser o nome ou o IP do servidor SIP, sem porta, esquema ou usuário (por exemplo sip.operadora.com.br).',
  sipExtension: 'O campo phone_number de um tronco do tipo extension deve ter de 1 a 15 dígitos.',
  ipRange: (field: string) => `O campo ${field} deve ser um endereço IP ou uma faixa CIDR válida (por exemplo 203.0.113.7 ou 203.0.113.0/24).`,
  ipsRequired: 'O campo allowed_inbound_ips deve ter ao menos um IP quando inbound_authorization_type é ip.',
  ipv4Only: (field: string) => `O campo ${field} deve ser um endereço IPv4 (quatro números separados por pontos) ou uma faixa IPv4: o provedor de telefonia não aceita outros.`,
  sipPasswordRules: 'O campo sip_password deve ter ao menos 12 caracteres, com ao menos um dígito, uma letra maiúscula e uma minúscula (regra do provedor de telefonia).',
  sipUsername: 'O campo sip_username deve ter de 3 a 128 caracteres visíveis, sem espaços, @ ou dois-pontos.',
  cursor: 'O cursor é inválido: use o next_cursor de uma página anterior.',
  // Analytics.
  wholeHour: (field: string) => `O campo ${field} deve ser uma hora cheia (minutos, segundos e milissegundos zero, em UTC).`,
  periodOrder: 'O campo to deve ser posterior a from.',
  periodTooLong: (bucket: string, days: number) => `Com bucket ${bucket}, o período pode ter no máximo ${days} dias.`,
  // Assistant tests.
  testLastMessageUser: (field: string) => `A última mensagem de ${field} deve ser do usuário (role user): é ela que o assistente responde.`,
  testUnknownTool: (field: string, name: string, known: readonly string[]) =>
    `O campo ${field} nomeia a ferramenta ${name}, que o assistente não tem; use uma destas: ${known.join(', ')}.`,
  testsPerAssistant: (limit: number) => `O assistente já tem o máximo de ${limit} testes (TEST_MAX_PER_ASSISTANT); exclua um antes de criar outro.`,
  noTestsToRun: 'O assistente não tem testes para executar; crie um em POST /user/assistants/{id}/tests.',
  testOfOtherAssistant: (field: string) => `O campo ${field} deve ser o id de um teste deste assistente.`,
  // Lead imports (CSV files).
  fileTooLarge: (field: string, maxBytes: number) => `O arquivo ${field} não pode ter mais de ${maxBytes} bytes.`,
  fileNotUtf8: (field: string) => `O arquivo ${field} deve ser um CSV codificado em UTF-8.`,
  csvTooManyRows: (field: string, max: number) => `O arquivo ${field} não pode ter mais de ${max} linhas de dados.`,
  csvEmpty: (field: string) => `O arquivo ${field} não tem linhas de dados (a primeira linha é o cabeçalho).`,
  csvHeader: (field: string) => `O cabeçalho do arquivo ${field} não pode ter colunas repetidas.`,
  csvNoPhoneColumn: 'O arquivo não tem coluna de telefone: nomeie-a phone_number ou phone, ou indique-a em mapping.',
  csvRecord: 'A linha não é um registro CSV válido (aspas abertas e não fechadas).',
  csvColumnCount: (got: number, expected: number) => `A linha tem ${got} colunas; o cabeçalho tem ${expected}.`,
  mappingColumn: (column: string) => `A coluna ${column} não existe no cabeçalho do arquivo.`,
  mappingTarget: (column: string) =>
    `O destino da coluna ${column} deve ser phone_number, variables.<nome>, secondary_contacts.<n>.phone_number, secondary_contacts.<n>.variables.<nome> ou null.`,
  mappingPhoneOnce: (target: string) => `Só uma coluna pode ir para ${target}.`,
  mappingContactPhone: (index: number) => `O contato secundário ${index} tem variáveis mas nenhuma coluna secondary_contacts.${index}.phone_number.`,
} as const;

export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'NOT_FOUND'
  | 'VALIDATION_FAILED'
  | 'PLAN_LIMIT'
  | 'INSUFFICIENT_BALANCE'
  | 'FORBIDDEN'
  | 'CONFLICT'
  | 'PROVIDER_FAILURE'
  | 'UNAVAILABLE'
  | 'INTERNAL'
  | 'BAD_REQUEST'
  | 'METHOD_NOT_ALLOWED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED';

/** The HTTP status that each code maps to, for REST and for `extensions.status` in GraphQL. */
export const HttpStatusByCode: Record<ErrorCode, number> = {
  UNAUTHENTICATED: 401,
  NOT_FOUND: 404,
  VALIDATION_FAILED: 422,
  PLAN_LIMIT: 422,
  INSUFFICIENT_BALANCE: 402,
  FORBIDDEN: 403,
  CONFLICT: 409,
  PROVIDER_FAILURE: 502,
  UNAVAILABLE: 503,
  INTERNAL: 500,
  BAD_REQUEST: 400,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
};

/** Field name (dotted for nested items, as `secondary_contacts.0.phone_number`) to its messages. */
export type FieldErrors = Record<string, string[]>;

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldErrors,
    /** Extra top-level keys of the REST body, such as the provider detail of a failed SMS. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  get status(): number {
    return HttpStatusByCode[this.code];
  }
}

export class ValidationError extends DomainError {
  constructor(errors: FieldErrors, message: string = Messages.validationFailed) {
    super('VALIDATION_FAILED', message, errors);
  }
}

export class NotFoundError extends DomainError {
  constructor(message: string) {
    super('NOT_FOUND', message);
  }
}

export class UnauthenticatedError extends DomainError {
  constructor() {
    super('UNAUTHENTICATED', Messages.unauthenticated);
  }
}

/** Collects field errors while a request is checked, then throws them together. */
export class FieldErrorCollector {
  readonly errors: FieldErrors = {};

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  has(field: string): boolean {
    return field in this.errors;
  }

  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  throwIfAny(message?: string): void {
    if (!this.empty) throw new ValidationError(this.errors, message);
  }
}
