import { hash, verify } from '@node-rs/argon2';
import { isCommonPassword } from './common-passwords.js';
import { ValidationError } from './validate.js';

// argon2id (the library's default algorithm) with OWASP's parameters: 19 MiB, 2 iterations, 1 lane.
const options = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, options);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/** Spends the same time as a real check, so an unknown username cannot be told apart by timing. */
export async function verifyAgainstNothing(password: string): Promise<void> {
  dummyHash ??= hashPassword('not-a-real-password');
  await verifyPassword(await dummyHash, password);
}

/** The server's half of the new-password rule (the protocol's schema holds the length): no common password. */
export function assertUncommonPassword(password: string, field = 'password'): void {
  if (isCommonPassword(password)) throw new ValidationError(field, 'reasonCommonPassword', {});
}
