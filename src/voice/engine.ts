/**
 * The seam between transports and engines (design.md, "The pipeline engine"): a transport
 * (Twilio Media Streams, later the browser's socket) carries a call's audio; an engine
 * (Realtime, pipeline) hears it and answers. They meet only here, and neither knows the other.
 *
 * The frame vocabulary is the telephone's: audio travels as base64 8 kHz G.711 mu-law, in the
 * chunks the transport delivers (Twilio's are 20 ms). A transport that carries something else
 * converts at its edge. A mark names a point in the audio sent. When the listener has heard
 * everything up to it, the transport reports the mark back. That is how an engine knows what
 * was heard.
 */

/** Samples per second of the frame vocabulary's audio. */
export const MEDIA_SAMPLE_RATE = 8000;

/** Why a call's media ended: the caller hung up, the transport dropped (the call is hung up), or this process stops. */
export type MediaEnd = 'customer' | 'media-lost' | 'shutdown';

/** What an engine does with a call's media. */
export interface VoiceEngine {
  /**
   * A chunk of the caller's audio: base64 8 kHz mu-law; and, from a transport that has it (the
   * browser's), the same chunk as 16 kHz PCM, which spares an engine that listens at 16 kHz
   * (the pipeline's VAD) turning the telephone's audio back up.
   */
  audio(payload: string, wide?: Int16Array): void;
  /** The listener has heard the audio sent before this mark. */
  played(mark: string): void;
  /** The media ended. Resolves once the engine has stopped and recorded what it heard. */
  end(reason: MediaEnd): Promise<void>;
}

/** What an engine sends to the call's media. */
export interface MediaOut {
  /** Audio to play: base64 8 kHz mu-law. */
  media(payload: string): void;
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

/** Milliseconds of audio in a base64 payload of the frame vocabulary (one byte a sample). */
export function payloadMs(payload: string): number {
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  return (((payload.length * 3) / 4 - padding) * 1000) / MEDIA_SAMPLE_RATE;
}

/** Base64, as a frame's payload must be. */
export const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
