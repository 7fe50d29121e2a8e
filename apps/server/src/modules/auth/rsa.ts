import { constants, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, privateDecrypt } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The key pair of the console's optional encrypted login. The client encrypts the JSON body with the
 * public key in chunks of the key's size less 11 bytes (245 for RSA-2048, PKCS#1 v1.5), joins the
 * blocks of the key's size (256 bytes) and sends them base64-encoded as `param`. It is kept in DATA_DIR
 * so that it survives restarts.
 */
export interface LoginKeys {
  /** The SubjectPublicKeyInfo in base64, without PEM armour, as the console expects it. */
  publicKey: string;
  decrypt(param: string): string;
}

export const LOGIN_KEY_BITS = 2048;

/**
 * Loads the key pair, creating it on first start. A key shorter than LOGIN_KEY_BITS (earlier versions
 * made 1024-bit ones) is replaced, and `onReplaced` is told so it can be logged.
 */
export function loadLoginKeys(dataDir: string, onReplaced: (oldBits: number) => void = () => {}): LoginKeys {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'login-key.pem');
  let privateKey = existsSync(file) ? createPrivateKey(readFileSync(file)) : undefined;
  const oldBits = privateKey?.asymmetricKeyDetails?.modulusLength ?? 0;
  if (!privateKey || oldBits < LOGIN_KEY_BITS) {
    privateKey = generateKeyPairSync('rsa', { modulusLength: LOGIN_KEY_BITS }).privateKey;
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    if (oldBits > 0) onReplaced(oldBits);
  }
  const block = (privateKey.asymmetricKeyDetails?.modulusLength ?? LOGIN_KEY_BITS) / 8;
  const publicKey = createPublicKey(privateKey).export({ type: 'spki', format: 'der' }).toString('base64');
  const key = privateKey;
  return { publicKey, decrypt: (param) => decryptChunks(key, block, param) };
}

export class DecryptError extends Error {}

function decryptChunks(privateKey: KeyObject, block: number, param: string): string {
  const data = Buffer.from(param, 'base64');
  if (data.length === 0 || data.length % block !== 0) throw new DecryptError('bad block length');
  const parts: Buffer[] = [];
  let conforming = true;
  for (let offset = 0; offset < data.length; offset += block) {
    const clear = privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, data.subarray(offset, offset + block));
    const message = unpad(clear, block);
    if (message === undefined) conforming = false;
    else parts.push(message);
  }
  // A bad padding and a bad plaintext end in the same error, so the answer is no padding oracle.
  if (!conforming) throw new DecryptError('undecryptable');
  return Buffer.concat(parts).toString('utf8');
}

/**
 * PKCS#1 v1.5 type 2 unpadding (0x00 0x02 PS 0x00 M, PS at least 8 non-zero bytes). Node refuses this
 * padding for private decryption since CVE-2023-46809, so the raw block is unpadded here.
 */
function unpad(block: Buffer, size: number): Buffer | undefined {
  if (block.length !== size || block[0] !== 0 || block[1] !== 2) return undefined;
  const separator = block.indexOf(0, 2);
  if (separator < 10) return undefined;
  return block.subarray(separator + 1);
}
