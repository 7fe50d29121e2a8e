import { existsSync } from 'node:fs';
import { join } from 'node:path';
import cors from '@fastify/cors';
import multipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import { CloseCode, isWorkingNow } from '@parley/protocol';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import helmet from 'helmet';
import type { Config } from './config.js';
import { Claims } from './db/claims.js';
import { isDatabaseUnavailable } from './db/errors.js';
import type { Storage } from './db/index.js';
import { INDEXER_TIMES, SearchIndexer } from './db/search-indexer.js';
import { clientErrorHandler } from './lib/client-error.js';
import { capConnections, capSockets, trustedPeer } from './lib/connections.js';
import { ApiError, RetryLaterError } from './lib/errors.js';
import { JobSlots } from './lib/heavy.js';
import { clientMeta, createRouter, langOf, recordApiRoutes } from './lib/http.js';
import { translate } from './lib/i18n.js';
import { Limits } from './lib/limits.js';
import { OutboundClient } from './lib/outbound.js';
import { publicBaseUrl } from './lib/public-url.js';
import { redactUrl } from './lib/redact.js';
import { loadSealer } from './lib/sealed.js';
import { UnderWay } from './lib/under-way.js';
import { AvailabilityService } from './modules/agents/availability.js';
import { AgentAvailabilityRepository } from './modules/agents/availability-repository.js';
import { availabilityRoutes } from './modules/agents/availability-routes.js';
import { AgentRepository } from './modules/agents/repository.js';
import { agentRoutes } from './modules/agents/routes.js';
import { AgentService } from './modules/agents/service.js';
import { ApiTokenRepository } from './modules/api-tokens/repository.js';
import { apiTokenRoutes } from './modules/api-tokens/routes.js';
import { ApiTokenService } from './modules/api-tokens/service.js';
import { AuditLog } from './modules/audit/audit-log.js';
import { AuditRepository } from './modules/audit/repository.js';
import { auditRoutes } from './modules/audit/routes.js';
import { AuditService } from './modules/audit/service.js';
import { Mfa } from './modules/auth/mfa.js';
import { MfaCodes } from './modules/auth/mfa-codes.js';
import { MfaRepository } from './modules/auth/mfa-repository.js';
import { AuthRepository } from './modules/auth/repository.js';
import { authRoutes } from './modules/auth/routes.js';
import { loadLoginKeys } from './modules/auth/rsa.js';
import { AuthService } from './modules/auth/service.js';
import { ConversationTimers } from './modules/auto-answers/timers.js';
import { TimerRepository } from './modules/auto-answers/timers-repository.js';
import { CensusRecorder } from './modules/census/recorder.js';
import { CensusRepository } from './modules/census/repository.js';
import { censusRoutes } from './modules/census/routes.js';
import { CensusService } from './modules/census/service.js';
import { SOUNDS } from './modules/chat/sounds.js';
import { registerWidget } from './modules/chat/widget.js';
import { Notifier } from './modules/conversations/notifier.js';
import { ConversationOutboxes } from './modules/conversations/outboxes.js';
import { ConversationRepository } from './modules/conversations/repository.js';
import { talkRoutes, visitorConversationRoutes } from './modules/conversations/routes.js';
import { Routing } from './modules/conversations/routing.js';
import { ConversationService } from './modules/conversations/service.js';
import { TranscriptMailer } from './modules/conversations/transcript.js';
import { FriendlyRepository } from './modules/friendly/repository.js';
import { friendlyRoutes } from './modules/friendly/routes.js';
import { FriendlyService } from './modules/friendly/service.js';
import { HistoryRepository } from './modules/history/repository.js';
import { historyRoutes } from './modules/history/routes.js';
import { HistoryService } from './modules/history/service.js';
import { HomeRepository } from './modules/home/repository.js';
import { homeRoutes } from './modules/home/routes.js';
import { identityRoutes } from './modules/identity/routes.js';
import { IdentityService } from './modules/identity/service.js';
import { integrationRoutes } from './modules/integration/routes.js';
import { IntegrationService } from './modules/integration/service.js';
import { LabelRepository } from './modules/labels/repository.js';
import { labelRoutes } from './modules/labels/routes.js';
import { LabelService } from './modules/labels/service.js';
import { LetterMailer } from './modules/letters/mailer.js';
import { LetterRepository } from './modules/letters/repository.js';
import { letterRoutes } from './modules/letters/routes.js';
import { LetterService } from './modules/letters/service.js';
import { LinkRepository } from './modules/links/repository.js';
import { linkRoutes } from './modules/links/routes.js';
import { LinkService } from './modules/links/service.js';
import { MailSender, mailServer, mailTarget } from './modules/mail/sender.js';
import { mailConsentPages } from './modules/mail-consent/pages.js';
import { MailConsentRepository } from './modules/mail-consent/repository.js';
import { MailConsent } from './modules/mail-consent/service.js';
import { navigationRoutes } from './modules/navigation/routes.js';
import { NoteRepository } from './modules/notes/repository.js';
import { noteRoutes } from './modules/notes/routes.js';
import { NoteService } from './modules/notes/service.js';
import { NoticeRepository } from './modules/notices/repository.js';
import { Notices } from './modules/notices/service.js';
import { openApiRoutes } from './modules/openapi/routes.js';
import { Metrics } from './modules/ops/metrics.js';
import { opsRoutes } from './modules/ops/routes.js';
import { PersonalRepository } from './modules/personal/repository.js';
import { personalRoutes } from './modules/personal/routes.js';
import { PersonalService } from './modules/personal/service.js';
import { PushRepository } from './modules/push/repository.js';
import { pushRoutes } from './modules/push/routes.js';
import { PushSender } from './modules/push/sender.js';
import { PushService } from './modules/push/service.js';
import { PushVisibility } from './modules/push/visibility.js';
import { RecordRepository } from './modules/records/repository.js';
import { recordRoutes } from './modules/records/routes.js';
import { regionRoutes } from './modules/regions/routes.js';
import { RegionRules } from './modules/regions/rules.js';
import { RobotRepository } from './modules/robots/repository.js';
import { RobotResponder } from './modules/robots/responder.js';
import { robotRoutes } from './modules/robots/routes.js';
import { RobotService } from './modules/robots/service.js';
import { RoleRepository } from './modules/roles/repository.js';
import { roleRoutes } from './modules/roles/routes.js';
import { RoleService } from './modules/roles/service.js';
import { originAllowed } from './modules/settings/origins.js';
import { SettingsRepository } from './modules/settings/repository.js';
import { RetentionPurge } from './modules/settings/retention.js';
import { RetentionRepository } from './modules/settings/retention-repository.js';
import { settingsRoutes } from './modules/settings/routes.js';
import { SettingsService } from './modules/settings/service.js';
import { uploadRoutes } from './modules/uploads/routes.js';
import { VisitorRecordRepository } from './modules/visitor-records/repository.js';
import { visitorRecordRoutes } from './modules/visitor-records/routes.js';
import { VisitorRecordService } from './modules/visitor-records/service.js';
import { VisitorRepository } from './modules/visitors/repository.js';
import { visitorRoutes } from './modules/visitors/routes.js';
import { VisitorService } from './modules/visitors/service.js';
import { widgetSettingsPusher } from './modules/visitors/widget-settings-push.js';
import { webhookRoutes } from './modules/webhooks/routes.js';
import { setUpWebhooks } from './modules/webhooks/setup.js';
import { WeChatApi } from './modules/wechat/api.js';
import { WeChatInbound } from './modules/wechat/inbound.js';
import { WeChatOutbox } from './modules/wechat/outbox.js';
import { WeChatRatings } from './modules/wechat/ratings.js';
import { channelStatus, wechatAdminRoutes, wechatQuotaRoute, wechatRoutes, wechatTypingRoutes } from './modules/wechat/routes.js';
import { WeChatStatus } from './modules/wechat/status.js';
import { WeChatTyping } from './modules/wechat/typing.js';
import { AgentSockets, registerAgentSocket } from './realtime/agent-socket.js';
import type { Bus } from './realtime/bus.js';
import { EventHub } from './realtime/domain-events.js';
import { Liveness } from './realtime/liveness.js';
import { AgentPresenceStore } from './realtime/presence.js';
import { SocketRoutes } from './realtime/socket-routes.js';
import { SharedVisitorPresence } from './realtime/visitor-presence.js';
import { registerVisitorSocket, VisitorSockets } from './realtime/visitor-socket.js';

export interface AppDeps {
  config: Config;
  storage: Storage;
  bus: Bus;
  logger?: FastifyBaseLogger | boolean;
  /** Where the default logger writes (one JSON line per call); pino's own destination when unset. */
  logStream?: { write(line: string): void };
  /** The clock that decides which site day "today" is, and when conversation timers come due; tests set it. */
  now?: () => number;
  /** The clock of token lifetimes and of the failed-login window; tests move it forward instead of waiting. */
  authNow?: () => number;
}

/** Default body limit of the JSON API; uploads declare their own. */
export const BODY_LIMIT = 256 * 1024;

/** Seconds a client is told to wait (Retry-After) while the database is away. */
export const UNAVAILABLE_RETRY_S = 5;

/** The whole server as one Fastify instance; `main.ts` runs it, tests build the very same thing. */
export async function buildApp({
  config,
  storage,
  bus,
  logger,
  logStream,
  now = Date.now,
  authNow = Date.now,
}: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: typeof logger === 'object' ? logger : undefined,
    logger:
      typeof logger === 'object'
        ? undefined
        : logger === false
          ? false
          : {
              level: config.logLevel,
              ...(logStream ? { stream: logStream } : {}),
              serializers: {
                req: (req) => ({ method: req.method, url: redactUrl(req.url), remoteAddress: req.ip }),
              },
            },
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustProxy,
    // Slow or silent clients must not hold connections (and file descriptors) for ever. Upgraded
    // WebSockets leave these timeouts behind; they have their own heartbeat rule.
    connectionTimeout: config.timeouts.idleMs,
    keepAliveTimeout: config.timeouts.keepAliveMs,
    requestTimeout: config.timeouts.requestMs,
    http: {
      headersTimeout: Math.min(config.timeouts.headersMs, config.timeouts.requestMs),
      requestTimeout: config.timeouts.requestMs,
      connectionsCheckingInterval: Math.min(1000, config.timeouts.headersMs),
    },
    // Requests Node refuses itself (headers too large, a broken request line) answer the API's envelope too.
    clientErrorHandler,
  });
  capConnections(app.server, config.maxConnectionsPerAddress, trustedPeer(config.trustProxy));
  const declaredRoutes = recordApiRoutes(app);

  const { db } = storage;
  storage.onConnectionError = (error) => app.log.warn({ err: error }, 'database connection error');
  const auditRepo = new AuditRepository(db);
  // Services that change the back office receive it and record each change in that change's transaction.
  const audit = new AuditLog(auditRepo, now);
  const sealer = loadSealer(config.dataDir, config.secretKey);
  const mailSender = new MailSender();
  const notices = new Notices(
    new NoticeRepository(db),
    {
      sender: mailSender,
      server: () => mailServer(config.mail, settings.current('softwareSetting').smtp),
      siteName: () => settings.current('softwareSetting').siteName,
      language: config.siteLanguage,
    },
    app.log,
    authNow,
  );
  const authRepo = new AuthRepository(db);
  const mfaRepo = new MfaRepository(db);
  const mfaCodes = new MfaCodes(mfaRepo, sealer, authNow);
  const auth = new AuthService(authRepo, config, bus, () => settings.siteTimeZone(), authNow, {
    db,
    mfaRepo,
    codes: mfaCodes,
    notices,
    audit,
  });
  const roleRepo = new RoleRepository(db);
  const agentRepo = new AgentRepository(db);
  const agents = new AgentService(db, agentRepo, roleRepo, auth, audit, notices);
  const roles = new RoleService(db, roleRepo, audit);
  const keys = loadLoginKeys(config.dataDir, (oldBits) => app.log.info({ oldBits }, 'replaced the short login encryption key'));
  const liveness = new Liveness(config.socketIdleMs, (count) =>
    app.log.info({ count, code: CloseCode.idle, idleMs: config.socketIdleMs }, 'closed sockets silent for the idle time'),
  );
  const agentSockets = new AgentSockets(bus);
  const links = new LinkService(db, new LinkRepository(db), () => publicBaseUrl(config, app.server), audit);
  const events = new EventHub((error, event) => app.log.error({ err: error, event }, 'event subscriber failed'));
  const settingsRepo = new SettingsRepository(db, sealer, (page, error) =>
    app.log.error(
      { page, reason: error.message },
      'a stored secret cannot be opened with this key (SECRET_KEY or DATA_DIR/secret.key); it reads as unset',
    ),
  );
  const sealedNow = await settingsRepo.sealStored();
  if (sealedNow > 0) app.log.info({ pages: sealedNow }, 'sealed the secrets of settings stored in clear');
  const outbound = new OutboundClient(config.outboundAllow);
  const settings = new SettingsService(
    settingsRepo,
    events,
    bus,
    (error) => app.log.error({ err: error }, 'settings reload failed'),
    config.siteTimeZone,
    db,
    audit,
  );
  await settings.load();
  const robots = new RobotService(
    db,
    new RobotRepository(db),
    settingsRepo,
    events,
    bus,
    (error) => app.log.error({ err: error }, 'robot settings reload failed'),
    outbound,
    audit,
    config.robotSemantic,
  );
  await robots.load();
  const siteTimeZone = () => settings.siteTimeZone();
  const visitorRepo = new VisitorRepository(db);
  const conversationRepo = new ConversationRepository(db, storage.dialect);
  const letterRepo = new LetterRepository(db);
  const availabilityRepo = new AgentAvailabilityRepository(db);
  const claims = new Claims(db, now);
  const wechatApi = new WeChatApi(db, sealer, claims, config.wechat, now);
  const wechatStatus = new WeChatStatus(db, (error) => app.log.warn({ err: error }, 'WeChat status not recorded'));
  const wechatOutbox = new WeChatOutbox(
    db,
    wechatApi,
    (channel) => {
      const page = settings.current('weChatSetting');
      const { enabled, appId, appSecret } = page[channel];
      return { channel, enabled, appId, appSecret, windowQuota: page.windowQuota };
    },
    events,
    wechatStatus,
    config.wechat,
    join(config.dataDir, 'uploads'),
    () => publicBaseUrl(config, app.server),
    app.log,
    now,
    () => config.siteLanguage,
  );
  // Before the notifier: a message to a WeChat visitor reaches agents already marked pending.
  wechatOutbox.subscribe(events);
  new Notifier(bus, conversationRepo, availabilityRepo).subscribe(events);
  // After the notifier: a visitor's message reaches its agent before the suggestion made from it.
  robots.subscribeAssist(events);
  const censusRepo = new CensusRepository(db, storage.dialect);
  new CensusRecorder(censusRepo, bus, now, siteTimeZone, (error) => app.log.error({ err: error }, 'census drop failed')).subscribe(events);
  const webhookParts = await setUpWebhooks({
    config,
    db,
    dialect: storage.dialect,
    bus,
    events,
    notices,
    audit,
    sealer,
    outbound,
    conversations: conversationRepo,
    log: app.log,
    now,
  });
  const webhooks = webhookParts.service;
  // Web Push to agents whose consoles are all out of sight (CONTRACT §14).
  const pushRepo = new PushRepository(db);
  const push = new PushService(
    pushRepo,
    sealer,
    outbound,
    () => (config.publicUrl?.startsWith('https://') ? config.publicUrl : 'mailto:push@parley.invalid'),
    now,
  );
  push.onKeyUnreadable = (error) =>
    app.log.error(
      { reason: error.message },
      'the Web Push key pair cannot be opened with this key (SECRET_KEY or DATA_DIR/secret.key); push is off',
    );
  await push.load();
  const pushVisibility = new PushVisibility(db, (error) => app.log.warn({ err: error }, 'console visibility not recorded'));
  agentSockets.onVisibility = (uuid, delta) => pushVisibility.change(uuid, delta);
  const pushSender = new PushSender(
    pushRepo,
    push,
    pushVisibility,
    () => settings.current('desktopSetting'),
    (permission) => availabilityRepo.holdersOf(permission),
    (error) => app.log.error({ err: error }, 'push not sent'),
  );
  pushSender.subscribe(events);
  push.onChanged = () => {
    pushSender.forget();
    bus.publish({ type: 'push.changed' }).catch((error: unknown) => app.log.warn({ err: error }, 'push device change not told'));
  };
  bus.subscribe((event) => {
    if (event.type === 'push.changed') pushSender.forget();
  });
  // Rows that commit with each conversation's opening and message: WeChat's first, so a webhook's copy
  // of a message to a WeChat visitor says it is pending.
  const outboxes = new ConversationOutboxes();
  outboxes.add(wechatOutbox.outbox);
  outboxes.add(webhookParts.outbox);
  const regionRules = new RegionRules(visitorRepo, () => settings.current('region'));
  const visitors = new VisitorService(visitorRepo, conversationRepo, availabilityRepo, events, links, settings, regionRules, () =>
    robots.currentHigh(),
  );
  const routing = new Routing(db, conversationRepo, visitorRepo, availabilityRepo, events, app.log, links, regionRules, outboxes);
  const conversations = new ConversationService(
    conversationRepo,
    visitorRepo,
    visitors,
    availabilityRepo,
    routing,
    events,
    () => settings.current('autoAnswer'),
    () => settings.current('windowSetting').maxLength,
    {
      responder: new RobotResponder(robots, (error) => app.log.warn({ err: error }, 'robot language model failed'), outbound),
      workingNow: () => isWorkingNow(settings.all(), settings.siteTimeZone(), new Date(now())),
      onError: (error) => app.log.error({ err: error }, 'robot answer failed'),
      assistUsed: (pairId) => robots.assistUsed(pairId),
    },
    outboxes,
  );
  const availability = new AvailabilityService(availabilityRepo, events, () => routing.drain());
  const letters = new LetterService(letterRepo, visitors, events, siteTimeZone);
  new LetterMailer(
    mailSender,
    () => mailTarget(config.mail, settings.current('softwareSetting').smtp),
    config.siteLanguage,
    app.log,
  ).subscribe(events);
  const mailConsent = new MailConsent(
    new MailConsentRepository(db, storage.dialect),
    mailSender,
    {
      enabled: () => settings.current('appSetting').transcriptEmail,
      server: () => mailServer(config.mail, settings.current('softwareSetting').smtp),
      siteName: () => settings.current('softwareSetting').siteName,
      baseUrl: () => publicBaseUrl(config, app.server),
      confirmSeconds: config.mail.transcriptConfirmSeconds,
      // A confirmation link is a token: its lifetime runs on the tokens' clock.
      now: authNow,
    },
    app.log,
  );
  new TranscriptMailer(
    db,
    conversationRepo,
    visitorRepo,
    mailSender,
    mailConsent,
    {
      enabled: () => settings.current('appSetting').transcriptEmail,
      server: () => mailServer(config.mail, settings.current('softwareSetting').smtp),
      siteName: () => settings.current('softwareSetting').siteName,
      timeZone: siteTimeZone,
    },
    app.log,
  ).subscribe(events);
  const timers = new ConversationTimers(
    new TimerRepository(db),
    {
      visitor: (id) => visitorRepo.findById(db, id),
      say: (visitor, text) => conversations.autoAnswer(visitor, text),
      closeInactive: (visitor) => conversations.closeInactive(visitor),
    },
    {
      autoAnswer: () => settings.current('autoAnswer'),
      autoCloseMinutes: () => settings.current('windowSetting').autoCloseMinutes,
    },
    app.log,
    config.timerPollMs,
    now,
  );
  timers.subscribe(events);
  const presence = new AgentPresenceStore(db, (error) => app.log.warn({ err: error }, 'presence refresh failed'));
  // Presence writes and notices under way: the close waits for them before anything they use is stopped.
  const presenceNotices = new UnderWay();
  const consoleChanged = (uuid: string) =>
    presenceNotices.add(
      availability.consoleChanged(uuid).catch((error: unknown) => app.log.error({ err: error }, 'agent presence notice failed')),
    );
  // An agent who connects may take waiting visitors.
  agentSockets.onFirstConnection = async (uuid) => {
    try {
      await presence.connected(uuid);
    } catch (error) {
      app.log.error({ err: error }, 'agent presence failed');
    }
    consoleChanged(uuid);
    void routing.drain();
  };
  agentSockets.onLastDisconnection = (uuid) => {
    presenceNotices.add(
      presence.disconnected(uuid).then(
        () => consoleChanged(uuid),
        (error: unknown) => app.log.error({ err: error }, 'agent presence failed'),
      ),
    );
  };
  const visitorGone = (publicId: string) => {
    conversations.visitorLeft(publicId).catch((error: unknown) => {
      app.log.error({ err: error }, 'visitor offline failed');
      // Left while the database was away: reported once it is back, unless the visitor returns first.
      if (isDatabaseUnavailable(error)) visitorSockets.leaveLater(publicId, UNAVAILABLE_RETRY_S * 1000);
    });
  };
  const sharedPresenceFailed = (error: unknown) => app.log.warn({ err: error }, 'shared visitor presence failed');
  const visitorSockets = new VisitorSockets(
    bus,
    visitorGone,
    config.redisUrl ? await SharedVisitorPresence.connect(config.redisUrl, config.redisPrefix, visitorGone, sharedPresenceFailed) : null,
    sharedPresenceFailed,
    config.presenceGraceMs,
  );
  // With one process, no socket outlived the last run; with Redis, other processes hold theirs.
  if (!config.redisUrl) {
    await visitorRepo.markAllOffline();
    await presence.clearAll();
    await pushVisibility.clearAll();
  }

  // Security headers, built once: the Fastify plugin rebuilds helmet (and re-parses the CSP) on every
  // request, which showed in the message path's profile.
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // antd writes its styles at run time.
        styleSrc: ["'self'", "'unsafe-inline'"],
        // Only our own images: an outside address in a message would let its owner see agents' addresses.
        imgSrc: ["'self'", 'data:', 'blob:'],
        connectSrc: ["'self'", 'ws:', 'wss:'],
        mediaSrc: ["'self'", 'data:'],
        frameAncestors: ["'self'"],
        workerSrc: ["'self'"],
        // Parley is often reached over plain HTTP on a LAN address (TLS, where used, ends at a proxy):
        // upgrading its own asset requests to https there would leave the console a blank page.
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
    // Sent below only over HTTPS: on plain HTTP it means nothing, and a LAN address answering it would
    // pin browsers to an HTTPS that is not there.
    strictTransportSecurity: false,
  });
  app.addHook('onRequest', (req, reply, done) => {
    // `req.protocol` believes x-forwarded-proto only from a TRUST_PROXY peer.
    if (req.protocol === 'https') reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
    securityHeaders(req.raw, reply.raw, (error?: unknown) => done(error as Error | undefined));
  });
  // API answers are one caller's data: no browser or proxy cache keeps them, exports included. Routes
  // that may be cached (uploaded files) say so themselves.
  app.addHook('onSend', async (req, reply) => {
    if ((req.url === '/api' || req.url.startsWith('/api/') || req.url.startsWith('/api?')) && !reply.hasHeader('cache-control'))
      reply.header('cache-control', 'no-store');
  });
  // Only the visitor side is called from other sites (the widget); agents' API stays same-origin.
  await app.register(cors, {
    delegator: (req, callback) => {
      const visitorSide = req.url?.startsWith('/api/visitor/') ?? false;
      callback(null, visitorSide ? { origin: true, methods: ['GET', 'POST'], credentials: false, maxAge: 600 } : { origin: false });
    },
  });
  await app.register(multipart);
  // At shutdown sockets get a fifth of the time closing may take (at most a second) to answer "going away".
  const socketRoutes = new SocketRoutes(app, Math.min(1000, config.shutdownTimeoutMs / 5));

  app.setErrorHandler((error: FastifyError | ApiError, req, reply) => {
    const lang = langOf(req);
    if (error instanceof ApiError) {
      if (error instanceof RetryLaterError) reply.header('retry-after', String(error.retryAfterSeconds));
      return reply.status(error.status).send({ code: error.status, msg: error.localized(lang), data: null });
    }
    const status = (error as FastifyError).statusCode ?? 500;
    if (status === 413) return reply.status(413).send({ code: 413, msg: translate(lang, 'tooLarge'), data: null });
    if (status === 415) return reply.status(415).send({ code: 415, msg: translate(lang, 'unsupportedType'), data: null });
    if (status === 400) return reply.status(400).send({ code: 400, msg: translate(lang, 'badJson'), data: null });
    if (isDatabaseUnavailable(error)) {
      req.log.warn({ err: error }, 'database unavailable');
      return reply
        .status(503)
        .header('retry-after', String(UNAVAILABLE_RETRY_S))
        .send({ code: 503, msg: translate(lang, 'databaseUnavailable'), data: null });
    }
    req.log.error({ err: error }, 'request failed');
    return reply.status(500).send({ code: 500, msg: translate(lang, 'serverError'), data: null });
  });

  app.setNotFoundHandler((req, reply) => {
    const lang = langOf(req);
    const path = redactUrl(req.url).split('?')[0] ?? '';
    if (path.startsWith('/api/') || path === '/api') {
      return reply.status(404).send({ code: 404, msg: translate(lang, 'routeNotFound', { path }), data: null });
    }
    return reply.status(404).send({ code: 404, msg: translate(lang, 'notFound'), data: null });
  });

  const metrics = new Metrics({ agents: () => agentSockets.count(), visitors: () => visitorSockets.count() });
  metrics.register(app);
  push.onFailure = (reason) => metrics.pushFailed(reason);
  opsRoutes(app, { config, storage, bus, metrics });

  const limits = await Limits.register(
    app,
    config.rateLimits,
    config.redisUrl ? { url: config.redisUrl, prefix: config.redisPrefix } : undefined,
    (error) => app.log.warn({ err: error }, 'rate limit store failed; requests pass unlimited'),
  );
  capSockets(app, { '/ws/visitor': config.maxVisitorSocketsPerAddress, '/ws/agent': config.maxAgentSocketsPerAddress });
  const apiTokens = new ApiTokenService(db, new ApiTokenRepository(db), audit, authNow);
  auth.apiTokens = apiTokens;
  const route = createRouter(app, auth, limits, declaredRoutes, (caller, key, req) => apiTokens.recordUse(caller, key, clientMeta(req).ip));
  apiTokenRoutes(route, apiTokens, app.apiRoutes);
  webhookRoutes(route, webhooks);
  pushRoutes(route, push, pushSender);
  openApiRoutes(app, route, () => publicBaseUrl(config, app.server));
  authRoutes(route, auth, keys);
  agentRoutes(route, agents, roles);
  roleRoutes(route, roles);
  recordRoutes(route, new RecordRepository(db), siteTimeZone);
  // One count of running CSV exports (history, knowledge base, audit log): each reads a page a slice.
  const exportSlots = new JobSlots(config.exportLimits, 'exportBusy');
  auditRoutes(route, new AuditService(auditRepo, siteTimeZone, now), exportSlots);
  friendlyRoutes(route, new FriendlyService(db, new FriendlyRepository(db), audit));
  linkRoutes(route, links);
  robotRoutes(route, robots, exportSlots);
  regionRoutes(route);
  personalRoutes(
    route,
    new PersonalService(db, new PersonalRepository(db), auth, () => settings.current('desktopSetting'), {
      mfaRepo,
      notices,
      audit,
      now: authNow,
    }),
    new Mfa(db, mfaRepo, mfaCodes, auth, notices, audit, () => settings.current('softwareSetting').siteName, authNow),
    auth,
  );
  integrationRoutes(route, new IntegrationService(links, () => publicBaseUrl(config, app.server)));
  navigationRoutes(route, agentRepo, { unread: () => letterRepo.unread() }, notices);
  homeRoutes(route, new HomeRepository(db), siteTimeZone, now);
  censusRoutes(route, new CensusService(censusRepo, siteTimeZone, now));
  visitorRoutes(route, visitors, settings, mailConsent, config.siteLanguage);
  identityRoutes(route, new IdentityService(db, visitors, settings, sealer, events));
  settingsRoutes(route, settings, {
    weChatSetting: async (answer) => {
      const page = answer as Record<'officialAccount' | 'miniProgram', object>;
      const extra = await channelStatus(wechatStatus, publicBaseUrl(config, app.server));
      return {
        ...page,
        officialAccount: { ...page.officialAccount, ...extra.officialAccount },
        miniProgram: { ...page.miniProgram, ...extra.miniProgram },
      };
    },
  });
  visitorConversationRoutes(route, conversations);
  letterRoutes(route, letters);
  availabilityRoutes(route, availability);
  talkRoutes(route, conversations);
  labelRoutes(route, new LabelService(db, new LabelRepository(db), audit, events, visitorRepo, conversationRepo, conversations));
  // A WeChat user is asked for a score in text when a conversation ends (WeChat has no rating form).
  const wechatRatings = new WeChatRatings(db, conversations, now);
  wechatRatings.subscribe(events);
  await wechatRoutes(
    app,
    () => settings.current('weChatSetting'),
    new WeChatInbound(db, sealer, wechatApi, visitors, conversations, wechatStatus, {
      uploadsDir: join(config.dataDir, 'uploads'),
      maxUploadBytes: () => settings.current('softwareSetting').uploadMaxMB * 1024 * 1024,
      maxLength: () => settings.current('windowSetting').maxLength,
      now,
      ratings: wechatRatings,
    }),
    wechatStatus,
    { maxAgeMs: config.wechat.pushMaxAgeMs, now },
  );
  wechatAdminRoutes(route, () => settings.current('weChatSetting'), wechatApi);
  wechatQuotaRoute(route, () => settings.current('weChatSetting').windowQuota);
  wechatTypingRoutes(
    route,
    new WeChatTyping(
      db,
      wechatApi,
      claims,
      (channel) => ({ channel, ...settings.current('weChatSetting')[channel] }),
      config.wechat.typingMs,
      app.log,
      now,
    ),
  );
  uploadRoutes(app, route, db, config.dataDir, config.uploads, {
    maxBytes: () => settings.current('softwareSetting').uploadMaxMB * 1024 * 1024,
    visitorUploads: () => settings.current('appSetting').visitorUploads,
    regionBlocked: (regionCode) => regionRules.blocks(regionCode),
  });
  const historyRepo = new HistoryRepository(db, storage.dialect);
  const noteRepo = new NoteRepository(db);
  historyRoutes(route, new HistoryService(historyRepo, visitorRepo, siteTimeZone, noteRepo), exportSlots);
  noteRoutes(
    route,
    new NoteService(noteRepo, visitorRepo, conversationRepo, notices, events, (auth, publicId) => conversations.readable(auth, publicId)),
  );
  visitorRecordRoutes(
    route,
    new VisitorRecordService(
      new VisitorRecordRepository(db, storage.dialect),
      historyRepo,
      visitorRepo,
      bus,
      join(config.dataDir, 'uploads'),
      siteTimeZone,
      app.log,
      audit,
    ),
  );
  registerAgentSocket(socketRoutes, auth, agentSockets, liveness, (context, input) => conversations.agentSend(context, input));
  registerVisitorSocket(
    socketRoutes,
    {
      publicIdOf: (credential) => visitors.publicIdOf(credential),
      online: (id) => conversations.visitorOnline(id),
      typing: (id, text) => visitors.typing(id, text),
      originAllowed: (req) => originAllowed(req, settings.current('appSetting').allowedOrigins),
      send: (credential, input) => conversations.visitorMessage(credential, input),
      limiter: (address, credential) => limits.sends('visitorMessage', address, credential),
    },
    visitorSockets,
    liveness,
  );
  const retention = new RetentionPurge(
    new RetentionRepository(db),
    () => settings.current('softwareSetting').retentionDays,
    join(config.dataDir, 'uploads'),
    app.log,
    now,
  );
  app.addHook('onReady', async () => retention.start());
  app.addHook('onReady', async () => timers.start());
  app.addHook('onReady', async () => wechatOutbox.start());
  app.addHook('onReady', async () => webhookParts.start());
  // The search indexes follow their tables, and take in the rows written before them in small steps.
  const searchIndexer = new SearchIndexer(db, storage.dialect, app.log, { ...INDEXER_TIMES, everyMs: config.searchIndexMs });
  app.addHook('onReady', async () => searchIndexer.start());
  settings.onChanged((page) => (page === 'softwareSetting' ? retention.run() : undefined));
  const pushWidgetSettings = widgetSettingsPusher(visitors, visitorSockets);
  settings.onChanged(pushWidgetSettings);
  robots.onHighChanged(pushWidgetSettings);
  app.get('/sounds/:name', (req, reply) => {
    const sound = SOUNDS[(req.params as { name: string }).name];
    if (!sound) return reply.callNotFound();
    return reply.type('audio/wav').header('cache-control', 'public, max-age=86400').send(sound);
  });
  await registerWidget(app, config.widgetDir);
  await mailConsentPages(app, mailConsent, config.siteLanguage);

  if (existsSync(config.consoleDir)) {
    await app.register(fastifyStatic, {
      root: config.consoleDir,
      prefix: '/',
      index: ['index.html'],
      // The build writes .br and .gz beside each asset.
      preCompressed: true,
      setHeaders(res, path) {
        // Hashed asset names change with their content; everything else must be revalidated.
        res.header('cache-control', /[\\/]static[\\/]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }

  const pruner = setInterval(() => auth.pruneSessions().catch((error) => app.log.warn({ err: error }, 'session pruning failed')), 3600_000);
  pruner.unref();
  app.addHook('onClose', async () => {
    clearInterval(pruner);
    // The sockets are closed by now (SocketRoutes' preClose); what their closing set going ends first.
    await presenceNotices.settled();
    await robots.close();
    liveness.stop();
    visitorSockets.stop();
    await visitorSockets.shared?.stop();
    await presence.stop();
    await limits.close();
    await timers.stop();
    await mailSender.close();
    await retention.stop();
    await wechatOutbox.stop();
    await webhookParts.stop();
    await searchIndexer.stop();
    await pushSender.flush();
    await pushVisibility.stop();
    outbound.close();
  });
  return app;
}
