/**
 * What a socket's text message may be read as. A frame holds any JSON value, not only the
 * object its protocol promises: `null`, a number, an array or a string parse as well, and a
 * property read on `null` throws past every handler of the socket. Each socket reads its
 * messages through `jsonMessage`, which answers only objects that name their kind.
 */

export type JsonObject = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The bytes of a ws message (a Buffer, or the fragments or ArrayBuffer of other binary types). */
function textOf(data: Buffer | ArrayBuffer | Buffer[] | string): string {
  if (typeof data === 'string') return data;
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

/**
 * A text message as a JSON object whose `kind` field (`event` for Twilio, `type` for the
 * browser) is a string; null for anything else (not JSON, another JSON value, no such field).
 */
export function jsonMessage<K extends string>(data: Buffer | ArrayBuffer | Buffer[] | string, kind: K): (JsonObject & Record<K, string>) | null {
  let value: unknown;
  try {
    value = JSON.parse(textOf(data));
  } catch {
    return null;
  }
  return isJsonObject(value) && typeof value[kind] === 'string' ? (value as JsonObject & Record<K, string>) : null;
}

/** A field of a message that must be an object: `{}` when it is anything else. */
export function objectField(message: JsonObject, name: string): JsonObject {
  const value = message[name];
  return isJsonObject(value) ? value : {};
}

/** A field of a message that must be a string: undefined when it is anything else. */
export function stringField(message: JsonObject, name: string): string | undefined {
  const value = message[name];
  return typeof value === 'string' ? value : undefined;
}

/** WebSocket close code of a message the protocol does not allow (RFC 6455: 1003, unsupported data). */
export const UNSUPPORTED_MESSAGE = 1003;
