import { credentials, safeLine } from '@parley/protocol';
import { ApiError, badRequest } from '../../lib/errors.js';
import { clientMeta, type DefineRoute } from '../../lib/http.js';
import { bearerToken } from '../../lib/tokens.js';
import { parse } from '../../lib/validate.js';
import type { LoginKeys } from './rsa.js';
import type { AuthService } from './service.js';

export function authRoutes(route: DefineRoute, auth: AuthService, keys: LoginKeys): void {
  route('POST /api/login', {
    access: 'public',
    // A refused form still names the account it tried: the attempt belongs in the login log.
    async onInvalidInput(req) {
      const attempted = attemptedUsername(req.body);
      if (attempted) await auth.recordRefusedLogin(attempted, clientMeta(req));
    },
    handler({ req, body }) {
      const { username, password } = 'param' in body ? decryptCredentials(keys, body.param) : body;
      return auth.login(username, password, clientMeta(req));
    },
  });

  route('POST /api/login/mfa', {
    access: 'public',
    handler: ({ req, body }) => auth.loginWithCode(body.ticket, body.code, clientMeta(req)),
  });

  route('GET /api/publicKey', { access: 'public', handler: () => ({ publicKey: keys.publicKey, mockServer: false }) });

  route('GET /api/userInfo', { access: 'agent', duringMfaSetup: true, handler: ({ auth: who }) => auth.userInfo(who) });

  route('GET /api/refreshToken', {
    access: 'public',
    handler: ({ req }) => auth.refresh(bearerToken(req.headers.authorization)),
  });

  route('GET /api/login/logOut', {
    access: 'agent',
    sessionOnly: true,
    duringMfaSetup: true,
    handler: ({ auth: who }) => auth.logout(who),
  });

  // Phone codes and social sign-in need an outside provider; none is configured in this deployment.
  route('GET /api/sendCode', {
    access: 'public',
    handler: () => {
      throw new ApiError(503, 'smsNotConfigured');
    },
  });
  route('POST /api/socialLogin', {
    access: 'public',
    handler: () => {
      throw new ApiError(503, 'socialNotConfigured');
    },
  });
}

function decryptCredentials(keys: LoginKeys, param: string) {
  let clear: string;
  try {
    clear = keys.decrypt(param);
  } catch {
    throw badRequest('badEncryptedPayload');
  }
  let json: unknown;
  try {
    json = JSON.parse(clear);
  } catch {
    throw badRequest('badEncryptedPayload');
  }
  return parse(credentials, json);
}

/** The account a refused clear-form attempt named, made safe to store (control characters replaced). */
function attemptedUsername(body: unknown): string {
  const username = typeof body === 'object' && body !== null ? (body as { username?: unknown }).username : undefined;
  return typeof username === 'string' ? safeLine(username.trim()) : '';
}
