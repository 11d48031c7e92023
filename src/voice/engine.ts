/**
 * The seam between transports and engines (design.md, "The pipeline engine" and "Web calls at
 * the browser's quality"): a transport (Twilio Media Streams, the browser's socket) carries a
 * call's audio; an engine (Realtime, pipeline) hears it and answers. They meet only here, and
 * neither knows the other.
 *
 * Audio crosses the seam as 16-bit linear PCM at the transport's own rate, both ways: 8 kHz from
 * the telephone (the transport decodes and encodes its G.711 mu-law), 16 kHz from a browser. So a
 * web call is heard and spoken at the quality the browser has, and never passes through the
 * telephone's 8 kHz. A mark names a point in the audio sent. When the listener has heard
 * everything up to it, the transport reports the mark back. That is how an engine knows what
 * was heard.
 */

/** The rates a transport carries: the telephone's, a browser's. */
export type MediaRate = 8000 | 16000;

/** Why a call's media ended: the caller hung up, the transport dropped (the call is hung up), or this process stops. */
export type MediaEnd = 'customer' | 'media-lost' | 'shutdown';

/** What an engine does with a call's media. */
export interface VoiceEngine {
  /** A chunk of the caller's audio, PCM at the transport's rate (`MediaOut.rate`); the engine may keep it. */
  audio(pcm: Int16Array): void;
  /** The listener has heard the audio sent before this mark. */
  played(mark: string): void;
  /** The caller pressed a key of the keypad: one of 0-9 * # A-D (the transport checked it; codecs/dtmf.ts DTMF_KEY). */
  digit(key: string): void;
  /** The media ended. Resolves once the engine has stopped and recorded what it heard. */
  end(reason: MediaEnd): Promise<void>;
}

/** What an engine sends to the call's media. */
export interface MediaOut {
  /** The rate of the audio both ways. */
  readonly rate: MediaRate;
  /** Audio to play: PCM at `rate`; the transport keeps no reference to it. */
  media(pcm: Int16Array): void;
  /** A mark after the audio sent so far; the transport reports it back once that audio is heard. */
  mark(name: string): void;
  /** Drops the audio not played yet (the caller interrupted). */
  clear(): void;
  /**
   * What is being said, as it is recognised or spoken, for a transport that shows it (the
   * browser's): the words so far of the turn under way. A turn's final text reaches the
   * transport from the call's record (LiveCall), not from here.
   */
  transcript?(speaker: 'customer' | 'assistant', text: string): void;
}
