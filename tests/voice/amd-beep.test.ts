import { BeepDetector } from '../../src/voice/amd/beep';
import { concat, espeak, noise, silence, tone } from '../helpers/espeak';

/** The beep detector (src/voice/amd/beep.ts) on synthetic beeps, real speech (espeak-ng) and noise, fed in 20 ms chunks as a call's audio comes. */

function hear(pcm: Int16Array, rate = 8000): BeepDetector {
  const detector = new BeepDetector(rate);
  const chunk = (rate * 20) / 1000;
  for (let at = 0; at < pcm.length; at += chunk) detector.audio(pcm.subarray(at, at + chunk));
  return detector;
}

describe('BeepDetector', () => {
  test.each([
    [1000, 500],
    [440, 300],
    [850, 800],
    [1400, 150],
    [1975, 400],
  ])('a %i Hz beep of %i ms after a greeting: found, with its start and end', (hz, ms) => {
    const greeting = espeak('Deixe seu recado após o sinal.', 'pt-br');
    const start = greeting.length / 8 + 300;
    const detector = hear(concat(greeting, silence(300), tone(hz, ms), silence(500)));
    expect(detector.beep).not.toBeNull();
    expect(Math.abs(detector.beep!.hz - hz)).toBeLessThanOrEqual(25);
    expect(Math.abs(detector.beep!.startMs - start)).toBeLessThanOrEqual(40);
    expect(Math.abs(detector.beep!.endMs! - (start + ms))).toBeLessThanOrEqual(40);
    expect(detector.ended).toBe(true);
  });

  test('the end of a beep still sounding is unknown', () => {
    const detector = hear(concat(silence(200), tone(1000, 400)));
    expect(detector.beep).toMatchObject({ startMs: 200, endMs: null, hz: 1000 });
    expect(detector.ended).toBe(false);
  });

  test('a beep that ends in noise ends there', () => {
    const detector = hear(concat(silence(200), tone(1000, 300), noise(400, 1500)));
    expect(detector.beep).toMatchObject({ startMs: 200, hz: 1000 });
    expect(Math.abs(detector.beep!.endMs! - 500)).toBeLessThanOrEqual(40);
  });

  test('at 16 kHz (a web call) too', () => {
    const detector = hear(concat(silence(200, 16000), tone(1000, 300, 16000), silence(200, 16000)), 16000);
    expect(detector.beep).toMatchObject({ startMs: 200, endMs: 500, hz: 1000 });
  });

  test.each([
    ['a tone shorter than 100 ms (a click)', concat(silence(200), tone(1000, 60), silence(400))],
    ['a tone outside the band (a 300 Hz hum)', concat(silence(200), tone(300, 800), silence(400))],
    ['a tone too quiet to be a beep', concat(silence(200), tone(1000, 800, 8000, 200), silence(400))],
    ['white noise', noise(3000, 3000)],
    ['speech (pt-br)', espeak('Alô, aqui é a Maria, pois não? Quem fala? Pode repetir, por favor?', 'pt-br')],
    ['speech (en-us)', espeak('Hello, you have reached the voicemail of John Smith. I am not available right now.', 'en-us')],
    ['speech (de)', espeak('Hallo, hier ist die Mailbox von Jonas. Bitte hinterlassen Sie eine Nachricht.', 'de')],
    ['silence', silence(3000)],
  ])('no beep in %s', (_name, pcm) => {
    expect(hear(pcm).beep).toBeNull();
  });
});
