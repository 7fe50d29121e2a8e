import { constants, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, privateDecrypt } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The key pair of the console's optional encrypted login. The client encrypts the JSON body with the
 * public key in 117-byte chunks (RSA-1024, PKCS#1 v1.5), joins the 128-byte blocks and sends them
 * base64-encoded as `param`. It is kept in DATA_DIR so that it survives restarts.
 */
export interface LoginKeys {
  /** The SubjectPublicKeyInfo in base64, without PEM armour, as the console expects it. */
  publicKey: string;
  decrypt(param: string): string;
}

const BLOCK = 128;

export function loadLoginKeys(dataDir: string): LoginKeys {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'login-key.pem');
  if (!existsSync(file)) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  }
  const privateKey = createPrivateKey(readFileSync(file));
  const publicKey = createPublicKey(privateKey).export({ type: 'spki', format: 'der' }).toString('base64');
  return { publicKey, decrypt: (param) => decryptChunks(privateKey, param) };
}

export class DecryptError extends Error {}

function decryptChunks(privateKey: KeyObject, param: string): string {
  const data = Buffer.from(param, 'base64');
  if (data.length === 0 || data.length % BLOCK !== 0) throw new DecryptError('bad block length');
  const parts: Buffer[] = [];
  let conforming = true;
  for (let offset = 0; offset < data.length; offset += BLOCK) {
    const block = privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, data.subarray(offset, offset + BLOCK));
    const message = unpad(block);
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
function unpad(block: Buffer): Buffer | undefined {
  if (block.length !== BLOCK || block[0] !== 0 || block[1] !== 2) return undefined;
  const separator = block.indexOf(0, 2);
  if (separator < 10) return undefined;
  return block.subarray(separator + 1);
}
