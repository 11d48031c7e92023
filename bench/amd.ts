import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BeepDetector } from '../src/voice/amd/beep';
import { AmdDetector, type AmdVerdict } from '../src/voice/amd/detector';
import { concat, espeak, silence, tone } from '../tests/helpers/espeak';
import { percentile } from './process';

/**
 * `npm run bench -- --only amd`: the answering-machine detector (src/voice/amd/) on a fixed
 * corpus of recorded-style greetings spoken by espeak-ng (pt-BR, en-US, de) at 8 kHz, as an
 * outbound call hears them: mailboxes of carriers and of people, carriers' intercepts, and
 * people answering (short and long). Each greeting is fed as the line carries it (20 ms
 * chunks), its words given as the STT's final 300 ms after the speech ends (Deepgram's
 * endpointing), then the line's silence, or for a mailbox its beep (1000 or 440 Hz, 300-800
 * ms) and silence. Writes the accuracy per language and class, the confusion and the time to
 * verdict to bench/results/amd.md. The audio is cached in bench/.cache/amd/.
 */

type Expected = AmdVerdict;
interface Greeting {
  language: 'pt-br' | 'en-us' | 'de';
  expected: Expected;
  text: string;
  /** Speaking rate (words per minute): people and carriers speak at different paces. */
  wpm?: number;
}

const pt = (expected: Expected, text: string, wpm?: number): Greeting => ({ language: 'pt-br', expected, text, wpm });
const en = (expected: Expected, text: string, wpm?: number): Greeting => ({ language: 'en-us', expected, text, wpm });
const de = (expected: Expected, text: string, wpm?: number): Greeting => ({ language: 'de', expected, text, wpm });

export const CORPUS: Greeting[] = [
  // pt-BR: Vivo, Claro, TIM, Oi mailboxes and intercepts, people's own greetings, people answering
  pt('machine', 'Sua chamada está sendo encaminhada para a caixa de mensagens e estará sujeita a cobrança após o sinal.'),
  pt('machine', 'A chamada está sendo encaminhada para a caixa postal. Grave seu recado após o sinal.'),
  pt('machine', 'Você ligou para o número nove nove oito sete seis, deixe seu recado após o sinal.'),
  pt('machine', 'Oi, aqui é a Ana. No momento não posso atender. Deixe sua mensagem que eu retorno.'),
  pt('machine', 'Olá, você ligou para o João. Deixe seu recado!', 190),
  pt('machine', 'Esta é a caixa postal de Marcos Oliveira. Após o sinal, grave a sua mensagem.'),
  pt('machine', 'Bom dia, você ligou para a padaria Estrela. Nosso horário de funcionamento é das oito às dezoito horas, de segunda a sábado.'),
  pt('machine', 'Correio de voz. O assinante não pode atender agora.'),
  pt('unavailable', 'O celular chamado está desligado ou fora da área de cobertura. Por favor, ligue mais tarde.'),
  pt('unavailable', 'O número chamado não existe. Verifique o número e ligue novamente.'),
  pt('unavailable', 'Este número está programado para não receber chamadas.'),
  pt('unavailable', 'O telefone chamado encontra-se desligado ou fora da área de serviço.'),
  pt('unavailable', 'O número de telefone chamado está temporariamente indisponível.'),
  pt('unavailable', 'Este número de telefone não existe. Consulte o catálogo ou o auxílio à lista.'),
  pt('human', 'Alô?'),
  pt('human', 'Alô.', 140),
  pt('human', 'Pronto?'),
  pt('human', 'Oi, quem é?'),
  pt('human', 'Pois não?'),
  pt('human', 'Alô, aqui é a Maria, pois não?'),
  pt('human', 'Alô, bom dia, quem fala?'),
  pt('human', 'Sim, pode falar.'),
  // en-US
  en('machine', "Hi, you've reached Mark. I can't take your call right now, please leave a message after the tone."),
  en('machine', 'The Google subscriber you have called is not available. Please leave a message after the tone.'),
  en('machine', 'Your call has been forwarded to an automated voice messaging system. Please record your message.'),
  en('machine', 'Hello, this is Jennifer. Leave your name and number and I will get back to you.'),
  en('machine', 'You have reached the voice mailbox of Robert Brown.'),
  en('machine', 'Thank you for calling Smith Plumbing. Our office hours are Monday through Friday, eight to five. We will return your call on the next business day.'),
  en('unavailable', 'The number you have dialed is not in service. Please check the number and try again.'),
  en('unavailable', 'We are sorry, your call cannot be completed as dialed.'),
  en('unavailable', 'The wireless customer you are calling is not available. Please try your call again later.'),
  en('unavailable', 'The number you have called has been disconnected or is no longer in service.'),
  en('unavailable', 'The person you are calling cannot be reached at the moment.'),
  en('human', 'Hello?'),
  en('human', 'Hi.'),
  en('human', 'Yeah?'),
  en('human', 'Hello, who is this?'),
  en('human', 'This is Dave.'),
  en('human', 'Hello, this is Sarah speaking, how can I help you?'),
  en('human', 'Good morning, Smith residence.'),
  // de
  de('machine', 'Hallo, hier ist die Mailbox von Jonas. Bitte hinterlassen Sie eine Nachricht nach dem Signalton.'),
  de('machine', 'Der gewünschte Gesprächspartner ist zur Zeit nicht erreichbar. Sie können aber eine Nachricht auf der Mailbox hinterlassen.'),
  de('machine', 'Guten Tag, Sie sind verbunden mit dem Anrufbeantworter von Familie Müller. Sprechen Sie nach dem Piepton.'),
  de('machine', 'Hallo, ich bin gerade nicht da. Hinterlass mir eine Nachricht, ich rufe zurück.'),
  de('machine', 'Willkommen bei der Praxis Doktor Schneider. Unsere Sprechzeiten sind montags bis freitags von acht bis zwölf Uhr.'),
  de('machine', 'Sie sind mit der Sprachbox von Anna Weber verbunden.'),
  de('unavailable', 'Kein Anschluss unter dieser Nummer.'),
  de('unavailable', 'Der Teilnehmer ist zur Zeit nicht erreichbar. Bitte versuchen Sie es später noch einmal.'),
  de('unavailable', 'Die gewählte Rufnummer ist nicht vergeben.'),
  de('unavailable', 'Der Mobilfunkteilnehmer ist zur Zeit nicht zu erreichen.'),
  de('human', 'Ja?'),
  de('human', 'Ja, bitte?'),
  de('human', 'Hallo?'),
  de('human', 'Müller.'),
  de('human', 'Hallo, wer ist da?'),
  de('human', 'Guten Tag, hier spricht Klaus Becker, was kann ich für Sie tun?'),
];

/** The STT's final, after the end of speech (the pipeline's endpointing and Deepgram's answer). */
const FINAL_AFTER_MS = 300;
/** The line after the greeting: long enough for every rule to have decided. */
const AFTER_MS = 4000;
const CHUNK = 160;

export interface AmdRow {
  language: string;
  expected: Expected;
  got: AmdVerdict | 'none';
  source: string | null;
  reason: string | null;
  verdict_ms: number | null;
  text: string;
}

export interface BeepRow {
  language: string;
  hz: number;
  ms: number;
  found: boolean;
  start_error_ms: number | null;
  end_error_ms: number | null;
}

function speech(cacheDir: string, greeting: Greeting): Int16Array {
  const key = createHash('sha256').update(`${greeting.language}|${greeting.wpm ?? 165}|${greeting.text}`).digest('hex').slice(0, 16);
  const file = path.join(cacheDir, `${key}.pcm`);
  if (existsSync(file)) {
    const raw = readFileSync(file);
    return new Int16Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
  }
  const pcm = espeak(greeting.text, greeting.language, 8000, greeting.wpm);
  writeFileSync(file, pcm);
  return pcm;
}

export function runAmdBench(root: string): { rows: AmdRow[]; beeps: BeepRow[]; falseBeeps: number } {
  const cacheDir = path.join(root, 'bench', '.cache', 'amd');
  mkdirSync(cacheDir, { recursive: true });
  const rows: AmdRow[] = [];
  const beeps: BeepRow[] = [];
  let falseBeeps = 0;
  CORPUS.forEach((greeting, index) => {
    const voice = speech(cacheDir, greeting);
    const mailbox = greeting.expected === 'machine';
    const beepHz = index % 2 === 0 ? 1000 : 440;
    const beepMs = 300 + ((index * 100) % 600);
    const gap = silence(400);
    const line = mailbox ? concat(voice, gap, tone(beepHz, beepMs), silence(AFTER_MS)) : concat(voice, silence(AFTER_MS));
    const detector = new AmdDetector();
    const beep = new BeepDetector(8000);
    const finalAt = voice.length + (FINAL_AFTER_MS * 8000) / 1000;
    for (let at = 0; at < line.length; at += CHUNK) {
      const chunk = line.subarray(at, at + CHUNK);
      detector.audio(chunk, 8000);
      beep.audio(chunk);
      if (at < finalAt && at + CHUNK >= finalAt) detector.final(greeting.text);
    }
    const decision = detector.decision;
    rows.push({
      language: greeting.language,
      expected: greeting.expected,
      got: decision?.verdict ?? 'none',
      source: decision?.source ?? null,
      reason: decision?.reason ?? null,
      verdict_ms: decision?.atMs ?? null,
      text: greeting.text,
    });
    if (mailbox) {
      const startMs = (voice.length + gap.length) / 8;
      const found = beep.beep;
      beeps.push({
        language: greeting.language,
        hz: beepHz,
        ms: beepMs,
        found: found?.endMs != null,
        start_error_ms: found ? Math.round(Math.abs(found.startMs - startMs)) : null,
        end_error_ms: found?.endMs != null ? Math.round(Math.abs(found.endMs - (startMs + beepMs))) : null,
      });
    } else if (beep.beep) {
      falseBeeps++;
    }
  });
  return { rows, beeps, falseBeeps };
}

const CLASSES: (AmdVerdict | 'none')[] = ['human', 'machine', 'unavailable', 'none'];

export function amdMarkdown({ rows, beeps, falseBeeps }: ReturnType<typeof runAmdBench>): string {
  const pct = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(0)}%` : '-');
  const lines: string[] = [];
  const correct = rows.filter((row) => row.got === row.expected).length;
  lines.push(
    `Answering-machine detector (src/voice/amd/) on ${rows.length} greetings spoken by espeak-ng at 8 kHz (bench/amd.ts): ${correct}/${rows.length} right (${pct(correct, rows.length)}). Each greeting is fed in 20 ms chunks, its words given as the STT's final ${FINAL_AFTER_MS} ms after the speech ends, then the line's silence (a mailbox: its beep, then silence). Time to verdict: ms of audio from the answer. The phrase lists and this corpus were written by the same hand: the figures say the rules do what they mean on clean speech, not what they score on a carrier's real line (its noise, its codecs, an STT's mistakes).`,
    '',
    '| language | class | greetings | right | accuracy | time to verdict p50 | max |',
    '|---|---|---|---|---|---|---|',
  );
  for (const language of ['pt-br', 'en-us', 'de']) {
    for (const expected of ['human', 'machine', 'unavailable'] as const) {
      const of = rows.filter((row) => row.language === language && row.expected === expected);
      const right = of.filter((row) => row.got === expected);
      const times = of.map((row) => row.verdict_ms).filter((ms): ms is number => ms !== null).sort((a, b) => a - b);
      lines.push(`| ${language} | ${expected} | ${of.length} | ${right.length} | ${pct(right.length, of.length)} | ${times.length ? percentile(times, 50) : '-'} | ${times.length ? times[times.length - 1] : '-'} |`);
    }
  }
  lines.push('', 'Confusion (rows: the truth, columns: the verdict; none: no verdict):', '', `| | ${CLASSES.join(' | ')} |`, `|---|${CLASSES.map(() => '---').join('|')}|`);
  for (const expected of ['human', 'machine', 'unavailable'] as const) {
    lines.push(`| ${expected} | ${CLASSES.map((got) => rows.filter((row) => row.expected === expected && row.got === got).length).join(' | ')} |`);
  }
  const bySource = ['phrase', 'twilio', 'timing'].map((source) => `${source} ${rows.filter((row) => row.source === source).length}`).join(', ');
  lines.push('', `Decided by: ${bySource}.`);
  const wrong = rows.filter((row) => row.got !== row.expected);
  if (wrong.length) {
    lines.push('', 'Wrong:', '', '| language | truth | verdict | reason | greeting |', '|---|---|---|---|---|');
    for (const row of wrong) lines.push(`| ${row.language} | ${row.expected} | ${row.got} | ${row.reason ?? '-'} | ${row.text} |`);
  }
  const found = beeps.filter((beep) => beep.found);
  const startErrors = found.map((beep) => beep.start_error_ms!).sort((a, b) => a - b);
  const endErrors = found.map((beep) => beep.end_error_ms!).sort((a, b) => a - b);
  lines.push(
    '',
    `Beep detector (src/voice/amd/beep.ts): a beep (1000 or 440 Hz, 300-800 ms) 400 ms after each of the ${beeps.length} mailbox greetings: found to its end in ${found.length} (${pct(found.length, beeps.length)}); its start within ${startErrors.length ? startErrors[startErrors.length - 1] : '-'} ms, its end within ${endErrors.length ? endErrors[endErrors.length - 1] : '-'} ms (max errors). Beeps found in the ${rows.length - beeps.length} greetings with none (people, intercepts): ${falseBeeps}.`,
  );
  return lines.join('\n');
}
