import { credentials, loginBody, registerBody, safeLine } from '@parley/protocol';
import { ApiError, badRequest } from '../../lib/errors.js';
import { clientMeta, type DefineRoute } from '../../lib/http.js';
import { bearerToken } from '../../lib/tokens.js';
import { parse, ValidationError } from '../../lib/validate.js';
import type { AgentService } from '../agents/service.js';
import type { LoginKeys } from './rsa.js';
import type { AuthService } from './service.js';

export function authRoutes(route: DefineRoute, auth: AuthService, agents: AgentService, keys: LoginKeys): void {
  route({
    method: 'POST',
    url: '/api/login',
    access: 'public',
    async handler({ req }) {
      const client = clientMeta(req);
      let username: string;
      let password: string;
      try {
        const body = parse(loginBody, req.body);
        ({ username, password } = 'param' in body ? decryptCredentials(keys, body.param) : body);
      } catch (error) {
        const attempted = attemptedUsername(req.body);
        if (error instanceof ValidationError && attempted) await auth.recordRefusedLogin(attempted, client);
        throw error;
      }
      return auth.login(username, password, client);
    },
  });

  route({ method: 'GET', url: '/api/publicKey', access: 'public', handler: () => ({ publicKey: keys.publicKey, mockServer: false }) });

  route({ method: 'GET', url: '/api/userInfo', access: 'agent', handler: ({ auth: who }) => auth.userInfo(who) });

  route({
    method: 'GET',
    url: '/api/refreshToken',
    access: 'public',
    handler: ({ req }) => auth.refresh(bearerToken(req.headers.authorization)),
  });

  route({ method: 'GET', url: '/api/login/logOut', access: 'agent', handler: ({ auth: who }) => auth.logout(who) });

  route({
    method: 'POST',
    url: '/api/register',
    access: 'public',
    limit: 'register',
    body: registerBody,
    handler: ({ body }) => agents.register(body),
  });

  // Phone codes and social sign-in need an outside provider; none is configured in this deployment.
  route({
    method: 'GET',
    url: '/api/sendCode',
    access: 'public',
    handler: () => {
      throw new ApiError(503, 'smsNotConfigured');
    },
  });
  route({
    method: 'POST',
    url: '/api/socialLogin',
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
