import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** WeChat's signature: the SHA-1 (hex) of its parts sorted and joined, as its push rules specify. */
export function wechatSignature(...parts: string[]): string {
  return createHash('sha1')
    .update([...parts].sort().join(''))
    .digest('hex');
}

/** Whether `given` is the signature of `parts`, compared in constant time. */
export function signatureMatches(given: string | undefined, ...parts: string[]): boolean {
  if (typeof given !== 'string' || given.length !== 40) return false;
  const expected = Buffer.from(wechatSignature(...parts), 'utf8');
  return timingSafeEqual(expected, Buffer.from(given.toLowerCase(), 'utf8'));
}

export class WeChatCryptoError extends Error {}

/** The EncodingAESKey (43 base64 characters) as the 32-byte key; its first 16 bytes are the IV. */
function keyOf(aesKey: string): Buffer {
  const key = Buffer.from(`${aesKey}=`, 'base64');
  if (key.length !== 32) throw new WeChatCryptoError('the EncodingAESKey is not 43 base64 characters');
  return key;
}

const BLOCK = 32;

/**
 * Safe mode's body: AES-256-CBC without the cipher's own padding, PKCS#7 to 32-byte blocks, over
 * 16 random bytes + the message's length (4 bytes, big-endian) + the message + the app's id.
 */
export function wechatEncrypt(aesKey: string, appId: string, message: string): string {
  const key = keyOf(aesKey);
  const body = Buffer.from(message, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  const plain = Buffer.concat([randomBytes(16), length, body, Buffer.from(appId, 'utf8')]);
  const pad = BLOCK - (plain.length % BLOCK);
  const cipher = createCipheriv('aes-256-cbc', key, key.subarray(0, 16)).setAutoPadding(false);
  return Buffer.concat([cipher.update(Buffer.concat([plain, Buffer.alloc(pad, pad)])), cipher.final()]).toString('base64');
}

/** The message inside a safe-mode body, and the app id it names; throws WeChatCryptoError on anything malformed. */
export function wechatDecrypt(aesKey: string, encrypted: string): { message: string; appId: string } {
  const key = keyOf(aesKey);
  const raw = Buffer.from(encrypted, 'base64');
  if (raw.length === 0 || raw.length % 16 !== 0) throw new WeChatCryptoError('the encrypted body is not whole blocks');
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-cbc', key, key.subarray(0, 16)).setAutoPadding(false);
    plain = Buffer.concat([decipher.update(raw), decipher.final()]);
  } catch {
    throw new WeChatCryptoError('the encrypted body does not decrypt');
  }
  const pad = plain[plain.length - 1] ?? 0;
  if (pad < 1 || pad > BLOCK || pad > plain.length) throw new WeChatCryptoError('the encrypted body has bad padding');
  const content = plain.subarray(16, plain.length - pad);
  if (content.length < 4) throw new WeChatCryptoError('the encrypted body is too short');
  const length = content.readUInt32BE(0);
  if (4 + length > content.length) throw new WeChatCryptoError('the encrypted body names a length it does not hold');
  return {
    message: content.subarray(4, 4 + length).toString('utf8'),
    appId: content.subarray(4 + length).toString('utf8'),
  };
}
