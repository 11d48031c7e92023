/**
 * What mailboxes and carriers say when a person does not answer, in pt, en, de and es: the
 * words the answering-machine detector looks for in the callee's first finals. Written
 * without accents or punctuation (the text is normalised the same way before matching), each
 * matched as whole words.
 *
 * Three strengths, because the same call often says two things: "O celular chamado está
 * desligado ou fora da área de cobertura. Deixe sua mensagem após o sinal" can take a message,
 * so a mailbox's own words (leave a message, after the tone) win over an intercept's; but
 * "the person you are calling is not available" is a carrier's intercept, so an intercept wins
 * over a mailbox's weaker words ("is not available", "não pode atender").
 */

/** Only a mailbox says these: a message can be left. */
export const MAILBOX_PHRASES: readonly string[] = [
  // pt: Vivo "encaminhada para a caixa de mensagens", Claro/TIM/Oi "caixa postal", people's own greetings
  'caixa postal',
  'caixa de mensagens',
  'caixa de mensagem',
  'correio de voz',
  'secretaria eletronica',
  'deixe sua mensagem',
  'deixe a sua mensagem',
  'deixe seu recado',
  'deixe o seu recado',
  'deixe um recado',
  'deixe uma mensagem',
  'deixa seu recado',
  'deixa uma mensagem',
  'apos o sinal',
  'apos o bip',
  'depois do sinal',
  'depois do bip',
  'grave seu recado',
  'grave sua mensagem',
  'grave a sua mensagem',
  'grave o seu recado',
  'sujeita a cobranca apos',
  // en
  'leave a message',
  'leave your message',
  'leave me a message',
  'leave a brief message',
  'leave your name',
  'after the tone',
  'after the beep',
  'at the tone',
  'at the beep',
  'voicemail',
  'voice mail',
  'voice mailbox',
  'mailbox',
  'record your message',
  'please record',
  // de
  'nach dem signalton',
  'nach dem piepton',
  'nach dem ton',
  'nach dem piep',
  'hinterlassen sie',
  'hinterlasse',
  'hinterlass mir',
  'sprachbox',
  'anrufbeantworter',
  'mobilbox',
  'sprechen sie nach',
  // es
  'buzon de voz',
  'buzon de mensajes',
  'deje su mensaje',
  'deje un mensaje',
  'deje su recado',
  'dejame un mensaje',
  'despues de la senal',
  'despues del tono',
  'al oir la senal',
  'contestador',
];

/** A carrier's intercept: nobody will take the call nor a message (the phone is off, the number does not exist). */
export const INTERCEPT_PHRASES: readonly string[] = [
  // pt: Vivo, Claro, TIM, Oi
  'fora da area de cobertura',
  'fora da area de servico',
  'esta desligado',
  'encontra se desligado',
  'esta fora de servico',
  'numero chamado nao existe',
  'numero discado nao existe',
  'numero de telefone nao existe',
  'numero nao existe',
  'numero inexistente',
  'nao existe ou esta',
  'nao recebe chamadas',
  'nao esta recebendo chamadas',
  'programado para nao receber',
  'temporariamente indisponivel',
  'verifique o numero',
  'confira o numero',
  'numero chamado esta',
  'numero foi alterado',
  'chamada nao pode ser completada',
  'ligue mais tarde',
  // en
  'not in service',
  'no longer in service',
  'has been disconnected',
  'number you have dialed',
  'number you have dialled',
  'number you have called',
  'number you dialed',
  'cannot be completed as dialed',
  'could not be completed',
  'the person you are calling',
  'the wireless customer',
  'the subscriber you have called',
  'the subscriber you are calling',
  'is switched off',
  'is not reachable',
  'cannot be reached',
  'please check the number',
  'please try again later',
  // de: Telekom, Vodafone, O2
  'kein anschluss unter dieser nummer',
  'nicht vergeben',
  'der teilnehmer ist',
  'gesprachspartner ist',
  'nicht erreichbar',
  'nicht zu erreichen',
  'ist ausgeschaltet',
  'rufnummer ist',
  'versuchen sie es spater',
  // es: Movistar, Vodafone, Orange, Claro, Telcel
  'el numero marcado no existe',
  'numero marcado no existe',
  'el numero que usted marco',
  'no existe',
  'fuera del area de cobertura',
  'fuera de cobertura',
  'esta apagado',
  'apagado o fuera',
  'no esta disponible en este momento',
  'no se encuentra disponible',
  'no puede ser completada',
  'intente mas tarde',
];

/** A mailbox's weaker words: a person's own greeting ("I can't take your call"), but also said by intercepts. */
export const WEAK_MAILBOX_PHRASES: readonly string[] = [
  'nao pode atender',
  'nao posso atender',
  'nao pode atender no momento',
  'nao esta disponivel',
  'no momento nao',
  'estou ocupado',
  'is not available',
  'isnt available',
  'not available right now',
  'cant take your call',
  'cannot take your call',
  'can not take your call',
  'cant come to the phone',
  'unable to answer',
  'unable to take your call',
  'im not available',
  'get back to you',
  'call you back',
  'nicht da',
  'leider nicht',
  'ruf zuruck',
  'rufe zuruck',
  'melde mich',
  'no puedo atender',
  'no puede atender',
  'no esta disponible',
  'le devolvere la llamada',
];

/** How a callee who is a person opens (a long greeting with one of these, then a pause, is a person's). */
export const HUMAN_OPENINGS: readonly string[] = [
  'alo',
  'alou',
  'oi',
  'ola',
  'pronto',
  'pois nao',
  'quem fala',
  'quem e',
  'sim',
  'bom dia',
  'boa tarde',
  'boa noite',
  'hello',
  'hi',
  'hey',
  'yes',
  'speaking',
  'good morning',
  'good afternoon',
  'who is this',
  'whos this',
  'how can i help',
  'ja',
  'hallo',
  'guten tag',
  'bitte',
  'wer ist da',
  'wer spricht',
  'digame',
  'diga',
  'bueno',
  'si',
  'hola',
  'buenos dias',
];

/** Lower case, without accents or punctuation, words separated by single spaces: what the lists above are written in. */
export function normalise(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/['’]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The first of `phrases` said in `normalised` (whole words), or null. */
export function firstPhrase(normalised: string, phrases: readonly string[]): string | null {
  const padded = ` ${normalised} `;
  return phrases.find((phrase) => padded.includes(` ${phrase} `)) ?? null;
}
