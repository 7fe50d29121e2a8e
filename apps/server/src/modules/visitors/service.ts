import { regionCodesOf, toWidgetSettings, type VisitorInit, type VisitorState, type WidgetSettings } from '@parley/protocol';
import type { Transaction } from 'kysely';
import type { DbOrTx } from '../../db/index.js';
import type { Database, MessageRow, VisitorRow } from '../../db/schema.js';
import { ApiError } from '../../lib/errors.js';
import { isoNow } from '../../lib/time.js';
import { hashToken, newVisitorCredential, newVisitorPublicId } from '../../lib/tokens.js';
import type { EventHub } from '../../realtime/domain-events.js';
import { AgentPresenceStore } from '../../realtime/presence.js';
import type { AgentAvailabilityRepository } from '../agents/availability-repository.js';
import type { LinkRouting } from '../links/service.js';
import { lookUpRegion } from '../regions/ip-region.js';
import { type RegionRouting, regionBlocked } from '../regions/rules.js';
import type { SettingsService } from '../settings/service.js';
import { parseSource, parseUserAgent, sourceOf } from './client-info.js';
import { UNTOUCHED_VISITOR, type VisitorRepository } from './repository.js';
import { toMessage, toVisitor, visitorLang } from './views.js';

export const INITIAL_MESSAGES = 50;

/**
 * What visitors read of their messages: those the widget opens with, and the last one that a visitor's
 * line in the agents' list shows. The conversations store them (ConversationRepository reads them too).
 */
export interface VisitorMessages {
  listMessages(visitorId: number, options: { limit: number }): Promise<MessageRow[]>;
  lastMessages(visitorIds: number[]): Promise<Map<number, MessageRow>>;
}

export const unknownVisitor = () => new ApiError(401, 'visitorUnknown');

/**
 * Visitors: who they are, the pages they visit and whether a widget of theirs is open.
 *
 * A visitor has two names: its `credential` (the YQToken init hands to the widget; only its hash is
 * stored) opens the visitor API, and its `publicId` (`YQToken` in everything agents see) names it to
 * agents and grants nothing on the visitor API.
 */
export class VisitorService {
  constructor(
    readonly repo: VisitorRepository,
    private readonly messages: VisitorMessages,
    private readonly agents: AgentAvailabilityRepository,
    private readonly events: EventHub,
    private readonly links: LinkRouting,
    private readonly settings: Pick<SettingsService, 'all' | 'siteTimeZone'>,
    private readonly regions: Pick<RegionRouting, 'blocks'>,
    /** The smart robot's profile when it is on, and its mode; read when the widget's settings are made. */
    private readonly robot: () => { enabled: boolean; mode: 'first' | 'offline'; name: string; avatar: string } = () => ({
      enabled: false,
      mode: 'offline',
      name: '',
      avatar: '',
    }),
  ) {}

  private get db() {
    return this.repo.db;
  }

  async init(
    input: {
      YQToken?: string | undefined;
      url: string;
      title?: string | undefined;
      referrer?: string | undefined;
      lang?: string | undefined;
      channel?: string | undefined;
      link?: string | undefined;
    },
    client: { ip: string; userAgent: string },
    /**
     * For a channel that makes its visitors itself (WeChat): what the new visitor is called and on, and
     * what the channel writes beside it in the same transaction (the two stored together or not at all).
     */
    madeByChannel: {
      profile?: { name: string; device: string; browser: string };
      within?: (tx: Transaction<Database>, visitor: VisitorRow, credential: string) => Promise<void>;
    } = {},
  ): Promise<VisitorInit> {
    const now = isoNow();
    const title = (input.title ?? '').slice(0, 512);
    const known = input.YQToken ? await this.byCredential(this.db, input.YQToken) : undefined;
    if (known) {
      await this.repo.update(this.db, known.id, { last_seen_at: now, lang: input.lang ?? known.lang });
      await this.recordVisit(known, input.url, title, now);
      const messages = await this.messages.listMessages(known.id, { limit: INITIAL_MESSAGES });
      const settings = await this.widgetSettings(input.lang, regionCodesOf(known.region_code));
      return initAnswer(known, input.YQToken ?? '', settings, messages);
    }
    // A credential the server has never handed out is not adopted: visitors get fresh random ones only.
    // Everything the answer needs is read before the visitor is stored, and the first visit is stored with
    // it: once the commit is through nothing can fail the answer, so a visitor is never stored without its
    // credential reaching the widget (an init answered 503 is asked again, and would make another visitor).
    const agent = parseUserAgent(client.userAgent);
    const source = parseSource(input.referrer ?? '', input.url);
    const region = lookUpRegion(client.ip);
    const credential = newVisitorCredential();
    const linkId = await this.links.linkIdOf(this.db, input.link);
    const settings = await this.widgetSettings(input.lang, regionCodesOf(region.code));
    const visitor = await this.db.transaction().execute(async (tx) => {
      const row = await this.repo.insert(tx, {
        token_hash: hashToken(credential),
        public_id: newVisitorPublicId(),
        ...UNTOUCHED_VISITOR,
        channel: input.channel ?? 'web',
        ip: client.ip,
        region: region.name,
        region_code: region.code,
        user_agent: client.userAgent.slice(0, 512),
        platform: agent.platform,
        browser: agent.browser,
        device: agent.device,
        referrer: (input.referrer ?? '').slice(0, 2048),
        source: sourceOf(input.referrer ?? '').slice(0, 255),
        engine: source.engine,
        keyword: source.keyword,
        first_url: input.url,
        lang: input.lang ?? '',
        created_at: now,
        last_seen_at: now,
        // A new visitor arriving through a known chat link is tagged with it (an unknown key: untagged).
        link_id: linkId,
        ...madeByChannel.profile,
      });
      await this.repo.insertVisit(tx, row.id, input.url, title, now);
      await madeByChannel.within?.(tx, row, credential);
      await this.events.record(tx, 'visitor.created', { visitor: row });
      return row;
    });
    // Subscribers' failures are theirs (the hub logs them): they never fail the answer.
    await this.events.emit('visitor.created', { visitor });
    await this.visitRecorded(visitor, input.url, title, now);
    // A visitor made just now has no messages yet.
    return initAnswer(visitor, credential, settings, []);
  }

  /**
   * The widget's settings in the visitor's language, from the settings pages and whether an agent is online
   * now; `regionCodes` (the visitor's region, its city and province) select the region rule that applies.
   */
  async widgetSettings(lang: string | undefined, regionCodes: readonly string[] = []): Promise<WidgetSettings> {
    return (await this.settingsProjector())(lang, regionCodes);
  }

  /** Projects the settings for many visitors at once: whether an agent is available is read once. */
  async settingsProjector(): Promise<(lang: string | undefined, regionCodes: readonly string[]) => WidgetSettings> {
    const online = (await this.agents.available(this.db, AgentPresenceStore.freshSince())).length > 0;
    const pages = this.settings.all();
    const siteTimeZone = this.settings.siteTimeZone();
    const robot = this.robot();
    return (lang, regionCodes) => {
      const settings = toWidgetSettings(pages, {
        lang: visitorLang({ lang }),
        online,
        region: regionCodes,
        siteTimeZone,
      });
      // In mode `offline` the robot answers exactly when the window would otherwise offer the letter form.
      const robotAnswers = robot.enabled && (robot.mode === 'first' || !settings.online);
      return robotAnswers ? { ...settings, robot: { name: robot.name, avatar: robot.avatar } } : settings;
    };
  }

  /** The region codes (region, city, province) of visitors by public id, as the region rules select them. */
  async regionCodesByPublicId(publicIds: readonly string[]): Promise<Map<string, readonly string[]>> {
    const rows = await this.repo.regionCodes(this.db, publicIds);
    return new Map(rows.map((row) => [row.public_id, regionCodesOf(row.region_code)]));
  }

  async visit(credential: string, url: string, title: string): Promise<void> {
    const visitor = await this.orFail(credential);
    await this.recordVisit(visitor, url, title, isoNow());
  }

  private async recordVisit(visitor: VisitorRow, url: string, title: string, at: string): Promise<void> {
    await this.repo.insertVisit(this.db, visitor.id, url, title.slice(0, 512), at);
    await this.visitRecorded(visitor, url, title, at);
  }

  /** Tells the visit once it is stored (agents watching the visitor see the page). */
  private visitRecorded(visitor: VisitorRow, url: string, title: string, at: string): Promise<void> {
    return this.events.emit('visit.recorded', { visitor, visit: { URL: url, title, created_at: at } });
  }

  byCredential(db: DbOrTx, credential: string): Promise<VisitorRow | undefined> {
    return this.repo.findByTokenHash(db, hashToken(credential));
  }

  /** The visitor API's lookup: 401 unless the credential is one init handed out. */
  async orFail(credential: string, db: DbOrTx = this.db): Promise<VisitorRow> {
    const visitor = await this.byCredential(db, credential);
    if (!visitor) throw unknownVisitor();
    return visitor;
  }

  /** The public id of the visitor with this credential, which its sockets are kept under. */
  async publicIdOf(credential: string): Promise<string | undefined> {
    return (await this.byCredential(this.db, credential))?.public_id;
  }

  /**
   * 403 when a region rule blocks the region (a visitor row's `region_code`, or the one looked up from an
   * address): asked by every visitor write, since a rule saved later must hold for visitors already here.
   */
  refuseBlockedRegion(regionCode: string): void {
    if (this.regions.blocks(regionCode)) throw regionBlocked();
  }

  /** Whether refuseAnonymous may refuse anyone now (the site asks for identified visitors). */
  get refusesAnonymous(): boolean {
    return this.settings.all().appSetting.requireIdentity;
  }

  /** 403 for a visitor the site has not identified while `requireIdentity` is on (CONTRACT §13): asked by every message a visitor sends. */
  refuseAnonymous(visitor: Pick<VisitorRow, 'user_id'>): void {
    if (visitor.user_id === null && this.refusesAnonymous) throw new ApiError(403, 'identityRequired');
  }

  async typing(publicId: string, text: string): Promise<void> {
    const visitor = await this.repo.findByPublicId(this.db, publicId);
    // A blocked visitor's draft would reach agents as surely as a message: dropped like one refused.
    if (visitor && !this.regions.blocks(visitor.region_code)) await this.events.emit('visitor.typing', { visitor, text });
  }

  /** Marks the visitor's widget open; agents hear of it when it was closed before. */
  async markOnline(publicId: string): Promise<VisitorRow | undefined> {
    const visitor = await this.repo.findByPublicId(this.db, publicId);
    if (!visitor) return undefined;
    await this.repo.update(this.db, visitor.id, { online: 1, last_seen_at: isoNow() });
    if (visitor.online === 0) {
      const online = { ...visitor, online: 1 };
      const last = await this.messages.lastMessages([visitor.id]);
      await this.events.emit('visitor.online', { visitor: online, view: toVisitor(online, last.get(visitor.id)) });
    }
    return visitor;
  }

  /** Marks the visitor gone; the visitor as it was, or undefined when it was not online. */
  async markOffline(publicId: string): Promise<VisitorRow | undefined> {
    const visitor = await this.repo.findByPublicId(this.db, publicId);
    if (!visitor || visitor.online === 0) return undefined;
    await this.repo.update(this.db, visitor.id, { online: 0, last_seen_at: isoNow() });
    await this.events.emit('visitor.offline', { visitor });
    return visitor;
  }

  /** What the visitor says of themself in the pre-chat form; a field left out or empty keeps its value. */
  /** Stores what the visitor says of themselves; answers the visitor as it was before. */
  async contact(
    credential: string,
    given: { name?: string | undefined; phone?: string | undefined; email?: string | undefined },
  ): Promise<VisitorRow> {
    const visitor = await this.orFail(credential);
    this.refuseBlockedRegion(visitor.region_code);
    const changes: { name?: string; phone?: string; email?: string } = {};
    if (given.name) changes.name = given.name;
    if (given.phone) changes.phone = given.phone;
    if (given.email) changes.email = given.email;
    if (Object.keys(changes).length > 0) await this.repo.update(this.db, visitor.id, changes);
    return visitor;
  }

  /** A name, phone and email the visitor gave (in a leave-message) fill a visitor not named yet. */
  async rememberContact(visitor: VisitorRow, contact: { name: string; phone: string; email: string }): Promise<void> {
    if (!visitor.name) await this.repo.update(this.db, visitor.id, contact);
  }
}

/** What an init answers: the visitor as the widget knows it, its credential, settings and latest messages. */
function initAnswer(visitor: VisitorRow, credential: string, settings: WidgetSettings, messages: readonly MessageRow[]): VisitorInit {
  return {
    YQToken: credential,
    id: visitor.public_id,
    state: visitor.state as VisitorState,
    serviceID: visitor.service_id,
    settings,
    messages: messages.map((row) => toMessage(row, visitor.public_id)),
  };
}
