import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, type Config } from '../config';

/** Whether a secret a client presented is the expected one, in constant time (false for a missing one). */
export function sameSecret(given: string | undefined | null, expected: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts secrets that must be read back (tool request headers, webhook signing secrets)
 * with AES-256-GCM. Sealed text is `v1:<base64 of iv | tag | ciphertext>`.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
  }

  open(sealed: string): string {
    const [version, payload] = sealed.split(':', 2);
    if (version !== VERSION || !payload) throw new Error('unrecognised sealed secret');
    const bytes = Buffer.from(payload, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }

  /** A separate key for another purpose (signing URLs, say), derived from this one. */
  derivedKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `vozgate:${purpose}`, 32));
  }

  sealJson(value: unknown): string {
    return this.seal(JSON.stringify(value));
  }

  openJson<T>(sealed: string): T {
    return JSON.parse(this.open(sealed)) as T;
  }
}

/**
 * SECRETS_KEY when set. On the embedded database a key is made once and kept beside the
 * cluster in DATA_DIR; on an external database the key must be given, since losing it
 * loses every sealed secret.
 */
export async function loadSecretBox(config: Config): Promise<SecretBox> {
  if (config.secretsKey) return new SecretBox(config.secretsKey);
  if (config.databaseUrl) {
    throw new ConfigError('SECRETS_KEY is required with DATABASE_URL: 32 random bytes, base64 (openssl rand -base64 32)');
  }
  const file = path.join(config.dataDir, 'secrets.key');
  await fs.mkdir(config.dataDir, { recursive: true });
  try {
    await fs.writeFile(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return new SecretBox(Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'base64'));
}
