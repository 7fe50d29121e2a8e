import type { Message, PushPayload, PushType, SettingsOf } from '@parley/protocol';
import type { VisitorRow } from '../../db/schema.js';
import { type Lang, translate } from '../../lib/i18n.js';
import { UnderWay } from '../../lib/under-way.js';
import type { EventHub } from '../../realtime/domain-events.js';
import { chosen, teamNotify } from '../personal/service.js';
import type { PushRepository, SubscriptionRow } from './repository.js';
import type { PushOutcome, PushService } from './service.js';
import type { PushVisibility } from './visibility.js';

/** The console pages a notification opens (CONTRACT §14: `url` opens that conversation); the console routes by hash. */
export const pushUrls = {
  conversation: (publicId: string) => `/#/workbench/workbench?visitor=${encodeURIComponent(publicId)}`,
  letters: '/#/history/letter',
  personal: '/#/personal/personal',
};

/** What one push says, in the language of the console that subscribed. */
type Compose = (lang: Lang) => Omit<PushPayload, 'type' | 'url'>;

const BODY_CHARS = 140;
/** How long who has devices is trusted without a change notice (one missed on the bus heals by then). */
const SUBSCRIBERS_KEPT_MS = 60_000;

type AgentSwitches = Awaited<ReturnType<PushRepository['agents']>>[number];

function visitorName(visitor: Pick<VisitorRow, 'name' | 'region'>, lang: Lang): string {
  return visitor.name || visitor.region || translate(lang, 'pushVisitor');
}

function preview(message: Message, lang: Lang): string {
  if (message.type === 'image') return translate(lang, 'pushImage');
  if (message.type === 'file') return translate(lang, 'pushFile');
  return message.msg.slice(0, BODY_CHARS);
}

/**
 * Decides who is pushed about what (CONTRACT §14), from the domain events: a waiting visitor or one given
 * to an agent (`newUser`), a visitor's message in the agent's conversation (`newMsg`), a transfer to the
 * agent (`transfer`), a new leave-message to holders of `seeHistorical` (`letter`); each by the agent's own
 * switch or else the team's desktop settings, and only to agents none of whose consoles is visible. It runs
 * off the path of the action: the event is answered first, the pushes follow.
 */
export class PushSender {
  private readonly pending = new UnderWay();
  /** Who has a device, kept in memory: a message to an agent without one costs no statement. */
  private subscribed: { at: number; uuids: Promise<Set<string>> } | undefined;

  constructor(
    private readonly repo: PushRepository,
    private readonly push: PushService,
    private readonly visibility: PushVisibility,
    private readonly team: () => SettingsOf<'desktopSetting'>,
    private readonly holdersOf: (permission: string) => Promise<string[]>,
    private readonly onError: (error: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Forgets who has devices (one was added or went, here or in another process): the next push reads it. */
  forget(): void {
    this.subscribed = undefined;
  }

  private subscribers(): Promise<Set<string>> {
    const nowMs = this.now();
    if (!this.subscribed || nowMs - this.subscribed.at > SUBSCRIBERS_KEPT_MS) {
      const uuids = this.repo.subscribedAgents().then((list) => new Set(list));
      // A failed read is not kept: the next push tries again.
      uuids.catch(() => this.forget());
      this.subscribed = { at: nowMs, uuids };
    }
    return this.subscribed.uuids;
  }

  /** Resolves once every push under way has been answered (before the database closes). */
  async flush(): Promise<void> {
    await this.pending.settled();
  }

  subscribe(events: EventHub): void {
    const newUser = (visitor: VisitorRow, to: string[] | 'online') =>
      this.later('newUser', to, pushUrls.conversation(visitor.public_id), visitor.public_id, (lang) => ({
        title: translate(lang, 'pushNewUser', { name: visitorName(visitor, lang) }),
        body: translate(lang, 'pushNewUserBody'),
      }));
    events.on('conversation.opened', ({ visitor, agent }) => {
      if (agent) newUser(visitor, [agent.uuid]);
      else if (visitor.state === 'waiting') newUser(visitor, 'online');
    });
    events.on('conversation.assigned', ({ visitor, agent, by }) => {
      // An agent who took the visitor is at the console; one handed a visitor from the queue may not be.
      if (by === 'queue') newUser(visitor, [agent.uuid]);
    });
    events.on('conversation.handedOver', ({ visitor, agent }) => newUser(visitor, agent ? [agent.uuid] : 'online'));
    events.on('conversation.transferred', ({ visitor, to }) =>
      this.later('transfer', [to.uuid], pushUrls.conversation(visitor.public_id), visitor.public_id, (lang) => ({
        title: translate(lang, 'pushTransfer', { name: visitorName(visitor, lang) }),
        body: translate(lang, 'pushTransferBody'),
      })),
    );
    events.on('message.stored', ({ visitor, message }) => {
      if (message.role !== 'user' || visitor.state !== 'current' || !visitor.service_id) return;
      this.later('newMsg', [visitor.service_id], pushUrls.conversation(visitor.public_id), visitor.public_id, (lang) => ({
        title: translate(lang, 'pushNewMsg', { name: visitorName(visitor, lang) }),
        body: preview(message, lang),
      }));
    });
    events.on('letter.created', ({ letter }) =>
      this.later('letter', 'seeHistorical', pushUrls.letters, `letter:${letter.id}`, (lang) => ({
        title: translate(lang, 'pushLetter', { name: letter.name || translate(lang, 'pushVisitor') }),
        body: letter.content.slice(0, BODY_CHARS),
      })),
    );
  }

  /** Sends "a test notification" to each of the agent's devices now, whatever its consoles show. */
  async test(agentId: number): Promise<{ sent: number; failed: number }> {
    const subscriptions = await this.repo.subscriptionsOf([agentId]);
    const compose: Compose = (lang) => ({ title: translate(lang, 'pushTest'), body: translate(lang, 'pushTestBody') });
    const outcomes = await this.sendAll(subscriptions, 'test', pushUrls.personal, 'test', compose);
    return {
      sent: outcomes.filter((outcome) => outcome === 'sent').length,
      failed: outcomes.filter((outcome) => outcome !== 'sent').length,
    };
  }

  private later(type: PushType, to: string[] | 'online' | 'seeHistorical', url: string, topicKey: string, compose: Compose): void {
    this.pending.add(this.deliver(type, to, url, topicKey, compose).catch(this.onError));
  }

  private async deliver(type: PushType, to: string[] | 'online' | 'seeHistorical', url: string, topicKey: string, compose: Compose) {
    const subscribed = await this.subscribers();
    if (subscribed.size === 0 || (Array.isArray(to) && !to.some((uuid) => subscribed.has(uuid)))) return;
    const named =
      to === 'online' ? await this.repo.onlineAgents() : to === 'seeHistorical' ? await this.holdersOf('seePermissions:seeHistorical') : to;
    const uuids = named.filter((uuid) => subscribed.has(uuid));
    const team = teamNotify(this.team());
    const wanted = (await this.repo.agents(uuids)).filter((agent) => wants(agent, type, team));
    if (wanted.length === 0) return;
    const hidden = new Set(await this.visibility.hidden(wanted.map((agent) => agent.uuid)));
    const agentIds = wanted.filter((agent) => hidden.has(agent.uuid)).map((agent) => agent.id);
    await this.sendAll(await this.repo.subscriptionsOf(agentIds), type, url, topicKey, compose);
  }

  private sendAll(
    subscriptions: SubscriptionRow[],
    type: PushType,
    url: string,
    topicKey: string,
    compose: Compose,
  ): Promise<PushOutcome[]> {
    return Promise.all(
      subscriptions.map((sub) => {
        const lang: Lang = sub.lang === 'en' ? 'en' : 'zh';
        return this.push.send(sub, { type, url, ...compose(lang) }, topicKey);
      }),
    );
  }
}

const SWITCH: Record<Exclude<PushType, 'test'>, { own: keyof AgentSwitches; team: 'newUser' | 'newMsg' | 'transfer' | 'letter' }> = {
  newUser: { own: 'notify_new_user', team: 'newUser' },
  newMsg: { own: 'notify_new_msg', team: 'newMsg' },
  transfer: { own: 'notify_transfer', team: 'transfer' },
  letter: { own: 'notify_letter', team: 'letter' },
};

function wants(agent: AgentSwitches, type: PushType, team: ReturnType<typeof teamNotify>): boolean {
  if (type === 'test') return true;
  const { own, team: teamKey } = SWITCH[type];
  return chosen(agent[own] as number | null) ?? team[teamKey];
}
