import type { AgentPeer, Frame, Message, Visitor } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { applyFrame, emptyLive, type LiveData, patchPeers } from './frames';
import { visitorFromFrame } from './model';

const ME = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
const TOKEN = 'visitor-token-aaaaaaaaaaaa';

function visitor(extra: Partial<Visitor> = {}): Visitor {
  return visitorFromFrame({
    YQToken: TOKEN,
    nickname: 'V0001',
    state: 'current',
    serviceID: ME,
    created_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  });
}

function message(seq: number, extra: Partial<Message> = {}): Message {
  return {
    id: seq,
    YQToken: TOKEN,
    seq,
    onlyID: `m${seq}`,
    role: 'user',
    type: 'text',
    msg: `hello ${seq}`,
    nickname: 'V0001',
    serviceID: ME,
    time: '2026-01-01T00:00:00.000Z',
    withdrawn: false,
    ...extra,
  };
}

function withVisitor(extra: Partial<Visitor> = {}, loaded = false): LiveData {
  const data = emptyLive(ME);
  data.visitors[TOKEN] = visitor(extra);
  if (loaded) data.conversations[TOKEN] = { messages: [message(1)], loaded: true, hasMore: false };
  return data;
}

function run(data: LiveData, ...frames: Frame[]) {
  let current = data;
  const effects = [];
  for (const frame of frames) {
    const applied = applyFrame(current, frame);
    current = applied.data;
    effects.push(...applied.effects);
  }
  return { data: current, effects };
}

describe('applyFrame: handshake and session', () => {
  it('0000 asks to identify; 8000 asks for a clean reload', () => {
    expect(applyFrame(emptyLive(ME), { code: '0000' }).effects).toEqual([{ kind: 'identify' }]);
    expect(applyFrame(emptyLive(ME), { code: '8000' }).effects).toEqual([{ kind: 'reload' }]);
  });
});

describe('applyFrame: visitor state', () => {
  it('8001 sets state and serviceID, but monitor and end keep the agent', () => {
    let { data } = run(withVisitor({ state: 'wait', serviceID: null }), {
      code: '8001',
      data: { YQToken: TOKEN, state: 'current', serviceID: OTHER },
    });
    expect(data.visitors[TOKEN]).toMatchObject({ state: 'current', serviceID: OTHER });
    data = run(data, { code: '8001', data: { YQToken: TOKEN, state: 'end', serviceID: null } }).data;
    expect(data.visitors[TOKEN]).toMatchObject({ state: 'end', serviceID: OTHER });
    data = run(data, { code: '8001', data: { YQToken: TOKEN, state: 'monitor', serviceID: ME } }).data;
    expect(data.visitors[TOKEN]).toMatchObject({ state: 'monitor', serviceID: OTHER });
  });

  it('maps the seed codes 1001, 2000-2004, 2016 and 9000 to their states', () => {
    const cases: [string, string][] = [
      ['1001', 'monitor'],
      ['2001', 'wait'],
      ['2002', 'current'],
      ['2003', 'wait'],
      ['2004', 'end'],
      ['9000', 'robot'],
    ];
    for (const [code, state] of cases) {
      expect(applyFrame(withVisitor(), { code, data: { YQToken: TOKEN } }).data.visitors[TOKEN]?.state, code).toBe(state);
    }
    const accepted = applyFrame(withVisitor({ state: 'wait', serviceID: null }), {
      code: '2000',
      data: { YQToken: TOKEN, serviceID: OTHER, tip: message(2, { role: 'tip', msg: 'tip.accepted' }) },
    }).data;
    expect(accepted.visitors[TOKEN]).toMatchObject({ state: 'current', serviceID: OTHER });
    expect(accepted.visitors[TOKEN]?.lastMessage?.msg).toBe('tip.accepted');
    const routed = applyFrame(withVisitor({ state: 'wait', serviceID: null }), {
      code: '2016',
      recipient: ME,
      data: { YQToken: TOKEN },
    }).data;
    expect(routed.visitors[TOKEN]).toMatchObject({ state: 'current', serviceID: ME });
  });

  it('asks for the list again when a frame names a visitor it does not hold', () => {
    expect(applyFrame(emptyLive(ME), { code: '8001', data: { YQToken: TOKEN, state: 'wait', serviceID: null } }).effects).toEqual([
      { kind: 'refreshList' },
    ]);
  });
});

describe('applyFrame: presence', () => {
  it('8002 adds a visitor with zeroed counters when the frame has none, and alerts', () => {
    const { data, effects } = run(emptyLive(ME), { code: '8002', data: { YQToken: TOKEN, nickname: 'V0009', state: 'end' } });
    expect(data.visitors[TOKEN]).toMatchObject({ nickname: 'V0009', unreadNumber: 0, umsg: 0, smsg: 0, online: true });
    expect(effects.map((effect) => effect.kind)).toEqual(['newVisitor']);
  });

  it('2005 and 2006 add a visitor without an alert', () => {
    for (const code of ['2005', '2006']) {
      const { data, effects } = run(emptyLive(ME), { code, data: { YQToken: TOKEN } });
      expect(data.visitors[TOKEN]).toBeDefined();
      expect(effects).toEqual([]);
    }
  });

  it('8003 and 2009 remove a browsing visitor, but keep one in a conversation or on screen, marked offline', () => {
    for (const code of ['8003', '2009']) {
      expect(run(withVisitor({ state: 'end' }), { code, data: { YQToken: TOKEN } }).data.visitors[TOKEN]).toBeUndefined();
      expect(run(withVisitor({ state: 'current' }), { code, data: { YQToken: TOKEN } }).data.visitors[TOKEN]?.online).toBe(false);
      const selected = { ...withVisitor({ state: 'end' }), selected: TOKEN };
      expect(run(selected, { code, data: { YQToken: TOKEN } }).data.visitors[TOKEN]?.online).toBe(false);
    }
  });

  it('notes when a visitor in conversation left, keeps the first time, and forgets it when the visitor is back', () => {
    const left = run(withVisitor({ state: 'current' }), { code: '8003', data: { YQToken: TOKEN, time: '2026-01-02T03:04:05.000Z' } }).data;
    expect(left.visitors[TOKEN]?.leftAt).toBe('2026-01-02T03:04:05.000Z');
    const again = run(left, { code: '2009', data: { YQToken: TOKEN, time: '2026-01-02T04:00:00.000Z' } }).data;
    expect(again.visitors[TOKEN]?.leftAt).toBe('2026-01-02T03:04:05.000Z');
    const back = run(again, { code: '8002', data: { YQToken: TOKEN, state: 'current' } }).data;
    expect(back.visitors[TOKEN]?.online).toBe(true);
    expect(back.visitors[TOKEN]?.leftAt).toBeUndefined();
  });
});

describe('applyFrame: messages', () => {
  it('8006 counts umsg, raises unread when the visitor is not on screen, and alerts its agent', () => {
    const { data, effects } = run(withVisitor(), { code: '8006', recipient: ME, data: message(2) });
    expect(data.visitors[TOKEN]).toMatchObject({ umsg: 1, unreadNumber: 1 });
    expect(data.visitors[TOKEN]?.lastMessage?.seq).toBe(2);
    expect(effects.map((effect) => effect.kind)).toEqual(['newMessage']);
  });

  it("8013 (another agent's conversation, to a supervisor) follows the line and a visitor message clears the draft preview", () => {
    const start = { ...withVisitor({ serviceID: OTHER }), typing: { [TOKEN]: 'Do you ship' } };
    const fromVisitor = run(start, { code: '8013', recipient: ME, data: message(2, { serviceID: OTHER }) });
    expect(fromVisitor.data.typing[TOKEN]).toBeUndefined();
    expect(fromVisitor.data.visitors[TOKEN]).toMatchObject({ umsg: 1, unreadNumber: 0 });
    expect(fromVisitor.effects).toEqual([]);
    // The agent's reply says nothing of the visitor's draft.
    const fromAgent = run(start, { code: '8013', recipient: ME, data: message(3, { role: 'service', serviceID: OTHER }) });
    expect(fromAgent.data.typing[TOKEN]).toBe('Do you ship');
    expect(fromAgent.data.visitors[TOKEN]?.lastMessage?.seq).toBe(3);
  });

  it('8006 for the visitor on screen is read at once and clears the typing preview', () => {
    const start = { ...withVisitor({}, true), selected: TOKEN, typing: { [TOKEN]: 'hel' } };
    const { data, effects } = run(start, { code: '8006', recipient: ME, data: message(2) });
    expect(data.visitors[TOKEN]?.unreadNumber).toBe(0);
    expect(data.typing[TOKEN]).toBeUndefined();
    expect(data.conversations[TOKEN]?.messages.map((item) => item.seq)).toEqual([1, 2]);
    expect(effects.map((effect) => effect.kind)).toEqual(['markRead', 'newMessage']);
  });

  it('8006 addressed to another agent does not alert this one', () => {
    expect(run(withVisitor({ serviceID: OTHER }), { code: '8006', recipient: OTHER, data: message(2) }).effects).toEqual([]);
  });

  it('a waiting visitor message (no recipient) alerts every agent who could take it', () => {
    const { effects } = run(withVisitor({ state: 'wait', serviceID: null }), { code: '8006', data: message(2, { serviceID: null }) });
    expect(effects.map((effect) => effect.kind)).toEqual(['newMessage']);
  });

  it('the same message twice (HTTP answer and frame) is stored and counted once', () => {
    const own = message(2, { role: 'service', onlyID: 'mine', serviceID: ME });
    const { data, effects } = run(
      withVisitor({}, true),
      { code: '8005', recipient: ME, data: own },
      { code: '8005', recipient: ME, data: own },
    );
    expect(data.visitors[TOKEN]?.smsg).toBe(1);
    expect(data.conversations[TOKEN]?.messages).toHaveLength(2);
    // Our own message coming back does not ring.
    expect(effects).toEqual([]);
  });

  it('8005 and 2010 from another agent or the robot count smsg; tips do not', () => {
    const robot = message(2, { role: 'robot', serviceID: null });
    expect(run(withVisitor(), { code: '8005', recipient: ME, data: robot }).data.visitors[TOKEN]?.smsg).toBe(1);
    expect(run(withVisitor(), { code: '2010', data: robot }).data.visitors[TOKEN]?.smsg).toBe(1);
    const tip = message(3, { role: 'tip', msg: 'tip.ended' });
    expect(run(withVisitor(), { code: '8005', data: tip }).data.visitors[TOKEN]?.smsg).toBe(0);
  });

  it('2017 adds a tip to the conversation without counting or alerting', () => {
    const { data, effects } = run(withVisitor({}, true), {
      code: '2017',
      recipient: ME,
      data: message(2, { role: 'tip', msg: 'tip.transferred' }),
    });
    expect(data.conversations[TOKEN]?.messages.at(-1)?.role).toBe('tip');
    expect(data.visitors[TOKEN]).toMatchObject({ umsg: 0, smsg: 0 });
    expect(effects).toEqual([]);
  });

  it('8013 keeps a supervisor’s line of another agent’s conversation current without alerting or raising unread', () => {
    const theirs = withVisitor({ state: 'current', serviceID: 'alice' });
    const { data, effects } = run(
      theirs,
      { code: '8013', data: message(2, { msg: 'from the visitor' }) },
      { code: '8013', data: message(3, { role: 'service', serviceID: 'alice', msg: 'alice answers' }) },
      { code: '8013', data: message(3, { role: 'service', serviceID: 'alice', msg: 'alice answers' }) },
      { code: '8013', data: message(4, { role: 'tip', msg: 'tip.visitorLeft' }) },
    );
    expect(data.visitors[TOKEN]).toMatchObject({ umsg: 1, smsg: 1, unreadNumber: 0 });
    expect(data.visitors[TOKEN]?.lastMessage?.seq).toBe(4);
    expect(effects).toEqual([]);
  });

  it('a hole in seq asks for a catch-up', () => {
    const { effects } = run({ ...withVisitor({}, true), selected: TOKEN }, { code: '8006', recipient: ME, data: message(5) });
    expect(effects.map((effect) => effect.kind)).toContain('catchUp');
  });

  it('2015 withdraws the message with that onlyID', () => {
    const own = message(2, { role: 'service', onlyID: 'mine' });
    const start = run(withVisitor({}, true), { code: '8005', recipient: ME, data: own }).data;
    const { data } = run(start, { code: '2015', data: { YQToken: TOKEN, onlyID: 'mine' } });
    const held = data.conversations[TOKEN]?.messages.find((item) => item.onlyID === 'mine');
    expect(held).toMatchObject({ withdrawn: true, msg: '' });
    expect(data.visitors[TOKEN]?.lastMessage?.withdrawn).toBe(true);
  });

  it('8020 marks a message to a WeChat visitor sent or failed, with the reason', () => {
    const own = message(2, { role: 'service', onlyID: 'wx', delivery: 'pending', deliveryError: null });
    const start = run(withVisitor({ channel: 'officialAccount' }, true), { code: '8005', recipient: ME, data: own }).data;
    const update = { YQToken: TOKEN, id: 2, onlyID: 'wx', delivery: 'failed', deliveryError: 'windowClosed' };
    const { data } = run(start, { code: '8020', data: update });
    expect(data.conversations[TOKEN]?.messages.find((item) => item.onlyID === 'wx')).toMatchObject({
      delivery: 'failed',
      deliveryError: 'windowClosed',
    });
    expect(data.visitors[TOKEN]?.lastMessage).toMatchObject({ delivery: 'failed' });
  });
});

describe('applyFrame: pages, typing and agents', () => {
  it('8010 adds a visited page, newest first, once', () => {
    const visit = { YQToken: TOKEN, URL: 'https://shop.example/a', title: 'A', created_at: '2026-01-01T00:00:01.000Z' };
    const next = { ...visit, URL: 'https://shop.example/b', created_at: '2026-01-01T00:00:02.000Z' };
    const { data } = run(withVisitor(), { code: '8010', data: visit }, { code: '8010', data: next }, { code: '8010', data: next });
    expect(data.visits[TOKEN]?.map((item) => item.URL)).toEqual(['https://shop.example/b', 'https://shop.example/a']);
  });

  it('8011 shows the draft; 8007 switches an agent state', () => {
    const { data } = run(
      withVisitor(),
      { code: '8011', data: { YQToken: TOKEN, text: 'where is' } },
      { code: '8007', data: { uuid: OTHER, state: '1' } },
    );
    expect(data.typing[TOKEN]).toBe('where is');
    expect(data.agents[OTHER]).toBe('1');
  });

  it('ignores unknown codes and malformed data', () => {
    const start = withVisitor();
    expect(applyFrame(start, { code: '8001' }).data).toBe(start);
    expect(applyFrame(start, { code: '8007', data: 'nope' }).data).toBe(start);
    expect(applyFrame(start, { code: '9999', data: {} }).data).toBe(start);
    expect(applyFrame(start, { code: '8006', data: { nope: true } }).data).toBe(start);
    expect(applyFrame(start, { code: '8001', data: { YQToken: TOKEN, state: 'bogus' } }).data).toBe(start);
  });
});

describe('patchPeers: the agent list follows 8007', () => {
  const peers: AgentPeer[] = [
    { uuid: ME, nickname: 'me', avatar: '', state: '0', online: true, username: 'me', open: 0, maxChats: 10 },
    { uuid: OTHER, nickname: 'other', avatar: '', state: '0', online: false, username: 'other', open: 0, maxChats: 10 },
  ];

  it('marks an agent whose console opened as online, and offline once it closed, keeping the others', () => {
    const opened = patchPeers(peers, { uuid: OTHER, state: '0', online: true });
    expect(opened?.find((peer) => peer.uuid === OTHER)).toMatchObject({ online: true, state: '0', nickname: 'other' });
    expect(opened?.find((peer) => peer.uuid === ME)).toEqual(peers[0]);
    const closed = patchPeers(opened ?? [], { uuid: OTHER, state: '0', online: false });
    expect(closed?.find((peer) => peer.uuid === OTHER)?.online).toBe(false);
  });

  it('follows a change of availability, and asks for the list again for an agent it does not hold', () => {
    expect(patchPeers(peers, { uuid: ME, state: '1', online: true })?.find((peer) => peer.uuid === ME)?.state).toBe('1');
    expect(patchPeers(peers, { uuid: '33333333-3333-4333-8333-333333333333', state: '0', online: true })).toBeUndefined();
  });
});
