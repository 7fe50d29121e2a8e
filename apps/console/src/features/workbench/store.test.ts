import type { Visitor } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { visitorFromFrame } from './model';
import { REPEAT_MARKER, useMonitoring, visitorsByGroup } from './store';

function visitor(token: string, extra: Partial<Visitor>): Visitor {
  return visitorFromFrame({ YQToken: token, nickname: token, state: 'current', created_at: '2026-01-01T00:00:00.000Z', ...extra });
}

describe('monitoring store', () => {
  it('groups visitors by state, a left visitor’s conversation apart, the most recent first', () => {
    const groups = visitorsByGroup({
      a: visitor('a', { online: false, created_at: '2026-01-03T00:00:00.000Z' }),
      b: visitor('b', { created_at: '2026-01-01T00:00:00.000Z' }),
      c: visitor('c', { created_at: '2026-01-02T00:00:00.000Z' }),
      d: visitor('d', { state: 'wait' }),
      e: visitor('e', { state: 'monitor' }),
      f: visitor('f', { state: 'end' }),
      g: visitor('g', { state: 'robot' }),
    });
    // A conversation whose visitor left is apart: it no longer counts among those in conversation.
    expect(groups.current.map((item) => item.YQToken)).toEqual(['c', 'b', 'e']);
    expect(groups.left.map((item) => item.YQToken)).toEqual(['a']);
    expect(groups.wait.map((item) => item.YQToken)).toEqual(['d']);
    expect(groups.robot.map((item) => item.YQToken)).toEqual(['g']);
    expect(groups.ended.map((item) => item.YQToken)).toEqual(['f']);
  });

  it('a message equal to the previous one gets a marker, so the change is seen', () => {
    const store = useMonitoring.getState();
    store.setSendMessage('Hello');
    expect(useMonitoring.getState().sendMessage).toBe('Hello');
    store.setSendMessage('Hello');
    expect(useMonitoring.getState().sendMessage).toBe(`Hello${REPEAT_MARKER}`);
    store.setSendMessage('Bye');
    expect(useMonitoring.getState().sendMessage).toBe('Bye');
  });

  it('selecting a visitor builds its source title and clears its unread count; clearing empties it', () => {
    const store = useMonitoring.getState();
    store.reset('me');
    store.setVisitors([visitor('v', { unreadNumber: 3, engine: 'Bing', keyword: 'rocket', referrer: 'https://bing.com' })]);
    const t = (key: string, values: Record<string, string>) => `${key}:${Object.values(values).join(',')}`;
    store.setSwitchUser(useMonitoring.getState().data.visitors.v ?? null, t);
    const state = useMonitoring.getState();
    expect(state.data.selected).toBe('v');
    expect(state.switchUser).toEqual({ referrer: 'https://bing.com', keyWord: 'rocket', YQToken: 'v' });
    expect(state.sourceTitle).toBe('workbench.source.search:rocket,Bing');
    expect(state.notices).toMatchObject({ type: 'info', title: 'workbench.notice.preview:' });
    expect(state.data.visitors.v?.unreadNumber).toBe(0);
    store.setSwitchUser(null, t);
    expect(useMonitoring.getState().switchUser.YQToken).toBe('');
  });

  it('replaces the monitored list, switches a listed agent state, and appends active names', () => {
    const store = useMonitoring.getState();
    store.setMonitoredList([{ uuid: 'a', state: '0' }]);
    store.switchServiceState('a', '1');
    store.switchServiceState('unknown', '0');
    expect(useMonitoring.getState().data.agents).toEqual({ a: '1' });
    store.setMonitoredList(null);
    expect(useMonitoring.getState().data.agents).toEqual({});
    const before = useMonitoring.getState().activeNames.length;
    store.addActiveNames([{ uuid: 'x' }, { uuid: 'y' }]);
    expect(useMonitoring.getState().activeNames.slice(before)).toEqual(['x', 'y']);
  });

  it('keeps the stored copy of a message once, whether the answer or the frame came first', () => {
    const store = useMonitoring.getState();
    store.reset('me');
    store.setVisitors([visitor('v', {})]);
    store.putMessages('v', [], 'latest');
    const message = {
      id: 1,
      YQToken: 'v',
      seq: 1,
      onlyID: 'o1',
      role: 'service' as const,
      type: 'text' as const,
      msg: 'hi',
      nickname: 'me',
      serviceID: 'me',
      time: '2026-01-01T00:00:00.000Z',
      withdrawn: false,
    };
    store.addPending({ ...message, seq: 0, pending: true });
    store.apply({ code: '8005', recipient: 'me', data: message });
    store.putMessages('v', [message], 'newer');
    expect(useMonitoring.getState().data.conversations.v?.messages).toEqual([message]);
    expect(useMonitoring.getState().data.visitors.v?.smsg).toBe(1);
  });
});
