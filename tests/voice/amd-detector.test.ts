import { AmdDetector, type AmdDecision } from '../../src/voice/amd/detector';
import { normalise } from '../../src/voice/amd/phrases';
import { concat, espeak, silence, tone } from '../helpers/espeak';

/**
 * The answering-machine detector (src/voice/amd/detector.ts), one table: what the callee's
 * line carries (espeak-ng speech, or a level held for a time), their finals, and Twilio's
 * AnsweredBy, as the engine gives them, and the verdict with what decided it.
 */

type Step = { talk: number } | { quiet: number } | { say: string; voice: string } | { final: string } | { twilio: 'human' | 'machine' | 'unknown' };

/** A voice-like level (a 300 Hz tone at speech's level): the timing rules' own input, independent of espeak's pauses. */
const voiced = (ms: number) => tone(300, ms, 8000, 6000);

function run(steps: Step[]): AmdDecision | null {
  const detector = new AmdDetector();
  const feed = (pcm: Int16Array) => {
    for (let at = 0; at < pcm.length; at += 160) detector.audio(pcm.subarray(at, at + 160), 8000);
  };
  for (const step of steps) {
    if ('talk' in step) feed(voiced(step.talk));
    else if ('quiet' in step) feed(silence(step.quiet));
    else if ('say' in step) feed(espeak(step.say, step.voice));
    else if ('final' in step) detector.final(step.final);
    else detector.answeredBy(step.twilio);
  }
  return detector.decision;
}

const cases: [string, Step[], AmdDecision['verdict'] | null, AmdDecision['source'] | null][] = [
  // phrases, whatever the timing
  ['a Vivo mailbox (pt)', [{ talk: 1200 }, { final: 'Sua chamada está sendo encaminhada para a caixa de mensagens e estará sujeita a cobrança após o sinal.' }], 'machine', 'phrase'],
  ['a personal mailbox (pt)', [{ talk: 900 }, { final: 'Oi, aqui é a Ana. Deixe seu recado!' }], 'machine', 'phrase'],
  ['a carrier intercept (pt)', [{ talk: 900 }, { final: 'O celular chamado está desligado ou fora da área de cobertura.' }], 'unavailable', 'phrase'],
  ['an intercept that forwards to the mailbox (pt): a message can be left', [{ final: 'O número está fora da área de cobertura. Deixe sua mensagem após o sinal.' }], 'machine', 'phrase'],
  ['a number that does not exist (pt)', [{ final: 'O número chamado não existe.' }], 'unavailable', 'phrase'],
  ['an intercept that says "not available" (en)', [{ final: 'The person you are calling is not available. Please try again later.' }], 'unavailable', 'phrase'],
  ['a mailbox (en)', [{ final: "Hi, you've reached Mark. I can't take your call, leave a message after the tone." }], 'machine', 'phrase'],
  ['not in service (en)', [{ final: 'The number you have dialed is not in service.' }], 'unavailable', 'phrase'],
  ['a Mailbox (de)', [{ final: 'Hallo, hier ist die Mailbox von Jonas. Bitte hinterlassen Sie eine Nachricht nach dem Signalton.' }], 'machine', 'phrase'],
  ['kein Anschluss (de)', [{ final: 'Kein Anschluss unter dieser Nummer.' }], 'unavailable', 'phrase'],
  ['a buzón (es)', [{ final: 'Está llamando al buzón de voz de Carmen, deje su mensaje después de la señal.' }], 'machine', 'phrase'],
  ['a number that does not exist (es)', [{ final: 'El número marcado no existe.' }], 'unavailable', 'phrase'],
  ['a weak mailbox phrase (pt)', [{ final: 'No momento não posso atender, ligo depois.' }], 'machine', 'phrase'],
  // Twilio
  ['Twilio says machine', [{ talk: 500 }, { twilio: 'machine' }], 'machine', 'twilio'],
  ['Twilio says human after a short hello', [{ talk: 500 }, { quiet: 200 }, { twilio: 'human' }], 'human', 'twilio'],
  ['Twilio says unknown: nothing yet', [{ talk: 500 }, { quiet: 200 }, { twilio: 'unknown' }], null, null],
  ['Twilio says human over a long greeting: the timing wins', [{ talk: 3000 }, { twilio: 'human' }, { final: 'Bom dia, você ligou para a padaria Estrela, nosso horário é das oito às dezoito horas' }], 'machine', 'timing'],
  // timing
  ['a short hello then silence (final)', [{ talk: 500 }, { final: 'Alô?' }, { quiet: 900 }], 'human', 'timing'],
  ['a short hello then silence, no final yet', [{ talk: 500 }, { quiet: 1600 }], 'human', 'timing'],
  ['a short hello with too little silence yet', [{ talk: 500 }, { quiet: 600 }], null, null],
  ['a long greeting, words not known yet', [{ talk: 3000 }], null, null],
  ['a long greeting then its words (no phrase)', [{ talk: 3000 }, { final: 'Bom dia, você ligou para a padaria Estrela, nosso horário é das oito às dezoito horas' }], 'machine', 'timing'],
  ['a long greeting that runs on with no final', [{ talk: 8200 }], 'machine', 'timing'],
  ['a person’s long hello, then silence', [{ talk: 2800 }, { final: 'Alô, aqui é a Maria Aparecida da Silva, pois não?' }, { quiet: 900 }], 'human', 'timing'],
  ['a person’s long hello that goes on is a machine', [{ talk: 2800 }, { final: 'Alô, aqui é a Maria Aparecida da Silva, pois não?' }, { talk: 5500 }], 'machine', 'timing'],
  ['silence only: no verdict', [{ quiet: 5000 }], null, null],
  // real speech
  ['espeak: "Alô?" then silence', [{ say: 'Alô?', voice: 'pt-br' }, { final: 'Alô?' }, { quiet: 1000 }], 'human', 'timing'],
  ['espeak: "Ja, bitte?" then silence', [{ say: 'Ja, bitte?', voice: 'de' }, { quiet: 1600 }], 'human', 'timing'],
  ['espeak: a mailbox greeting with no phrase, long', [{ say: 'Bom dia, você ligou para a padaria Estrela, nosso horário de funcionamento é das oito às dezoito horas de segunda a sábado', voice: 'pt-br' }, { quiet: 1600 }], 'machine', 'timing'],
];

describe('AmdDetector', () => {
  test.each(cases)('%s', (_name, steps, verdict, source) => {
    const decision = run(steps);
    expect(decision?.verdict ?? null).toBe(verdict);
    expect(decision?.source ?? null).toBe(source);
    if (decision) expect(decision.reason).toBeTruthy();
  });

  test('the verdict is final: what comes after changes nothing', () => {
    const detector = new AmdDetector();
    detector.final('Caixa postal');
    expect(detector.final('Alô?')?.verdict).toBe('machine');
    expect(detector.answeredBy('human')?.verdict).toBe('machine');
  });

  test('the phrase in the reason, and its time', () => {
    const detector = new AmdDetector();
    detector.audio(concat(voiced(1000), silence(200)), 8000);
    const decision = detector.final('Deixe sua mensagem após o sinal');
    expect(decision).toEqual({ verdict: 'machine', source: 'phrase', reason: 'mailbox: "deixe sua mensagem"', atMs: 1200 });
  });

  test('phrases are matched without accents, case or punctuation, as whole words', () => {
    expect(normalise('Após o SINAL, grave-o!')).toBe('apos o sinal grave o');
    expect(normalise('Kein Anschluß unter dieser Nummer')).toBe('kein anschluss unter dieser nummer');
    const detector = new AmdDetector();
    // "mailboxes" is not the word "mailbox"... but "voicemailbox" is no word either: a person saying "mailboxes" is not a mailbox.
    expect(detector.final('I sell mailboxes')).toBeNull();
  });
});

test('once the assistant has opened first, a long answer is no machine; a mailbox phrase still is', () => {
  const detector = new AmdDetector();
  detector.audio(silence(1500), 8000);
  detector.greeted();
  detector.audio(concat(voiced(4000), silence(2000)), 8000);
  expect(detector.final('Sim, sou eu mesma, pode falar que estou ouvindo, diga o que precisa')).toBeNull();
  expect(detector.final('Deixe seu recado')?.verdict).toBe('machine');
});
