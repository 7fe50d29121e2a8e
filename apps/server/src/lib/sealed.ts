import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Every sealed value starts with this, so a value stored before sealing existed is told apart. */
const PREFIX = 'sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The key file's name in DATA_DIR when no SECRET_KEY is given. */
export const KEY_FILE = 'secret.key';

export class SealError extends Error {}

/**
 * Seals the secrets the database keeps (SMTP password, model keys, WeChat secrets, TOTP seeds, webhook
 * secrets) with AES-256-GCM under a key that lives outside the database, so that a copy of the database
 * alone does not reveal them. Each value is bound to its purpose (the additional data), so a sealed value
 * moved to another field does not open there.
 */
export class Sealer {
  /** A short fingerprint of the key, stored with each value: a wrong key is told, not taken for bad data. */
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new SealError('the sealing key must be 32 bytes');
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 8);
  }

  static isSealed(value: string): boolean {
    return value.startsWith(PREFIX);
  }

  seal(clear: string, purpose: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(purpose, 'utf8'));
    const body = Buffer.concat([cipher.update(clear, 'utf8'), cipher.final()]);
    return `${PREFIX}${this.keyId}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** The clear value; throws SealError when it was sealed with another key, for another purpose, or altered. */
  open(sealed: string, purpose: string): string {
    if (!Sealer.isSealed(sealed)) throw new SealError('the value is not sealed');
    const rest = sealed.slice(PREFIX.length);
    const colon = rest.indexOf(':');
    if (rest.slice(0, colon) !== this.keyId) throw new SealError('the value was sealed with another key');
    const raw = Buffer.from(rest.slice(colon + 1), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SealError('the sealed value is damaged');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SealError('the sealed value is damaged or was sealed for another field');
    }
  }
}

/**
 * The sealing key: derived from `SECRET_KEY` when set (every process of a deployment then shares it
 * without sharing a disk), else read from DATA_DIR's key file, which the first start creates (mode 0600).
 * Two processes starting at once on a fresh DATA_DIR agree: only one creates the file, the other reads it.
 */
export function loadSealer(dataDir: string, secretKey: string | undefined): Sealer {
  if (secretKey) {
    return new Sealer(Buffer.from(hkdfSync('sha256', secretKey, 'parley', 'sealed secrets v1', 32)));
  }
  const file = join(dataDir, KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    // Written whole under a name of its own, then linked into place: linking fails when the file exists,
    // so a process starting beside this one never reads a half-written key.
    const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    const fd = openSync(draft, 'wx', 0o600);
    try {
      writeSync(fd, `${randomBytes(32).toString('base64')}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(draft, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(draft, { force: true });
    }
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new SealError(`${file} does not hold a 32-byte key (base64); restore the original file or set SECRET_KEY`);
  return new Sealer(key);
}
