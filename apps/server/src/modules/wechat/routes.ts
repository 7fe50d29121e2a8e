import type { SettingsOf, WeChatChannel, WeChatChannelStatus, WeChatErrorCode, WeChatTestAnswer } from '@parley/protocol';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DefineRoute } from '../../lib/http.js';
import { type WeChatApi, WeChatApiError } from './api.js';
import { signatureMatches, WeChatCryptoError, wechatDecrypt } from './crypto.js';
import { BadPush, isWeChatChannel, type Push, parsePush, type WeChatInbound } from './inbound.js';
import type { WeChatStatus } from './status.js';
import type { WeChatTyping } from './typing.js';

/** WeChat pushes one message a request, a few KiB at most; anything larger is not WeChat. */
export const MAX_PUSH_BYTES = 64 * 1024;

type Apps = () => SettingsOf<'weChatSetting'>;

const plain = (reply: FastifyReply, status: number, text: string) => reply.code(status).type('text/plain; charset=utf-8').send(text);

/**
 * WeChat's push URLs (§11): `GET` is the URL check of WeChat's console, `POST` a message or event. Both
 * are public and signed with the channel's token; a channel that is off (or has no token) answers 404.
 */
export async function wechatRoutes(
  app: FastifyInstance,
  apps: Apps,
  inbound: WeChatInbound,
  status: WeChatStatus,
  clock: { maxAgeMs: number; now: () => number },
): Promise<void> {
  /**
   * Whether the signed timestamp (seconds) is within the allowed distance of now: a signature is only as
   * good as its timestamp, so a push recorded and sent again later is refused as a forged one would be.
   */
  const fresh = (timestamp: string) => /^\d{1,12}$/.test(timestamp) && Math.abs(clock.now() - Number(timestamp) * 1000) <= clock.maxAgeMs;
  await app.register(async (scope) => {
    // WeChat's bodies are read as they came (XML, or JSON for a mini program) and parsed here.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_PUSH_BYTES }, (_req, body, done) => done(null, body));

    const channelOf = (params: unknown) => {
      const name = (params as { channel?: string }).channel ?? '';
      if (!isWeChatChannel(name)) return undefined;
      const settings = apps()[name];
      return settings.enabled && settings.token ? { name, settings } : undefined;
    };

    scope.get('/wechat/:channel', async (req, reply) => {
      const channel = channelOf(req.params);
      if (!channel) return plain(reply, 404, 'not found');
      const q = req.query as Record<string, unknown>;
      const text = (key: string) => (typeof q[key] === 'string' ? (q[key] as string) : '');
      if (!signatureMatches(text('signature'), channel.settings.token, text('timestamp'), text('nonce')))
        return plain(reply, 401, 'bad signature');
      if (!fresh(text('timestamp'))) return plain(reply, 401, 'stale timestamp');
      return plain(reply, 200, text('echostr'));
    });

    scope.post('/wechat/:channel', async (req, reply) => {
      const channel = channelOf(req.params);
      if (!channel) return plain(reply, 404, 'not found');
      const { name, settings } = channel;
      const q = req.query as Record<string, unknown>;
      const text = (key: string) => (typeof q[key] === 'string' ? (q[key] as string) : '');
      const refuse = async (code: number, why: string, reason: WeChatErrorCode) => {
        await status
          .failed(name, reason, `push refused: ${why}`)
          .catch((error: unknown) => req.log.warn({ err: error }, 'WeChat status failed'));
        return plain(reply, code, why);
      };
      if (!signatureMatches(text('signature'), settings.token, text('timestamp'), text('nonce')))
        return refuse(401, 'bad signature', 'badSignature');
      if (!fresh(text('timestamp'))) return refuse(401, 'stale timestamp', 'staleTimestamp');
      const format = name === 'miniProgram' && 'format' in settings && settings.format === 'json' ? 'json' : 'xml';
      const body = typeof req.body === 'string' ? req.body : '';
      let push: Push;
      try {
        push = parsePush(body, format);
        if (text('encrypt_type') === 'aes') {
          const encrypted = push.Encrypt ?? '';
          if (!settings.aesKey || !encrypted) return refuse(400, 'no encrypted body', 'badBody');
          if (!signatureMatches(text('msg_signature'), settings.token, text('timestamp'), text('nonce'), encrypted))
            return refuse(401, 'bad msg_signature', 'badSignature');
          const inner = wechatDecrypt(settings.aesKey, encrypted);
          if (inner.appId !== settings.appId) return refuse(401, 'the encrypted body names another appId', 'otherAppId');
          push = parsePush(inner.message, format);
        }
      } catch (error) {
        if (error instanceof BadPush) return refuse(400, error.message, 'badBody');
        if (error instanceof WeChatCryptoError) return refuse(400, error.message, 'badEncryption');
        throw error;
      }
      try {
        await inbound.receive(name, settings, push);
      } catch (error) {
        if (error instanceof BadPush) return refuse(400, error.message, 'badBody');
        await status.failed(name, 'storeFailed', 'a push could not be stored').catch(() => undefined);
        throw error;
      }
      return plain(reply, 200, 'success');
    });
  });
}

/** What GET of the weChatSetting page answers beside each channel's fields. */
export async function channelStatus(status: WeChatStatus, baseUrl: string): Promise<Record<WeChatChannel, WeChatChannelStatus>> {
  return {
    officialAccount: { serverUrl: `${baseUrl}/wechat/officialAccount`, status: await status.of('officialAccount') },
    miniProgram: { serverUrl: `${baseUrl}/wechat/miniProgram`, status: await status.of('miniProgram') },
  };
}

/** The settings page's "test the credentials": a token fetched with the stored AppID and AppSecret. */
export function wechatAdminRoutes(route: DefineRoute, apps: Apps, api: WeChatApi): void {
  route('POST /api/wechat/test', {
    access: 'admin',
    handler: async ({ body }): Promise<WeChatTestAnswer> => {
      const channel = body.channel;
      const { appId, appSecret } = apps()[channel];
      if (!appId || !appSecret) return { ok: false, errcode: 0, message: '' };
      try {
        await api.checkCredentials({ channel, appId, appSecret });
        return { ok: true, errcode: 0, message: 'ok' };
      } catch (error) {
        if (!(error instanceof WeChatApiError)) throw error;
        // WeChat's own words (errmsg) or why it could not be reached; '' above means nothing to test with.
        return { ok: false, errcode: error.kind === 'errcode' ? error.code : 0, message: error.message || error.kind };
      }
    },
  });
}

/** The reply quota agents are shown beside a WeChat conversation; the page itself (with its secrets) is the Admin's. */
export function wechatQuotaRoute(route: DefineRoute, quota: () => number): void {
  route('GET /api/wechat/replyQuota', { access: 'agent', handler: () => ({ quota: quota() }) });
}

/** The agent's composer tells the server while they type to a WeChat user: WeChat's typing indicator. */
export function wechatTypingRoutes(route: DefineRoute, typing: WeChatTyping): void {
  route('POST /api/wechat/typing', {
    access: 'agent',
    handler: ({ auth, body }) => typing.typing(auth, body.YQToken, body.typing),
  });
}
