import { describe, expect, it } from 'vitest';
import {
  addTab,
  changeTabsMeta,
  closeAll,
  closeLeft,
  closeOthers,
  closeRight,
  closeTab,
  fallbackPath,
  type Tab,
  withAffixTabs,
} from './tabs';

const tab = (path: string, meta: Partial<Tab['meta']> = {}): Tab => ({
  path,
  name: path.slice(1) || 'root',
  meta: { title: path, ...meta },
});

function open(...paths: string[]): Tab[] {
  return paths.reduce<Tab[]>((tabs, path) => addTab(tabs, tab(path, path === '/index' ? { noClosable: true } : {}), 20), []);
}

describe('tabs', () => {
  it('adds a tab per path and updates an existing one', () => {
    let tabs = open('/index', '/a');
    tabs = addTab(tabs, { ...tab('/a'), meta: { title: 'renamed' } }, 20);
    expect(tabs.map((item) => item.path)).toEqual(['/index', '/a']);
    expect(tabs[1]?.meta.title).toBe('renamed');
  });

  it('keeps a dynamicNewTab tab per full path', () => {
    let tabs = open('/index');
    tabs = addTab(tabs, tab('/user/userDetail?id=1', { dynamicNewTab: true }), 20);
    tabs = addTab(tabs, tab('/user/userDetail?id=2', { dynamicNewTab: true }), 20);
    tabs = addTab(tabs, tab('/user/userDetail?id=1', { dynamicNewTab: true }), 20);
    expect(tabs.map((item) => item.path)).toEqual(['/index', '/user/userDetail?id=1', '/user/userDetail?id=2']);
  });

  it('makes the first tab non-closable when none is', () => {
    const tabs = addTab([], tab('/a'), 20);
    expect(tabs[0]?.meta.noClosable).toBe(true);
    expect(closeTab(tabs, '/a')).toHaveLength(1);
  });

  it('never holds more than the maximum, dropping the oldest closable tab', () => {
    let tabs = open('/index');
    for (let i = 0; i < 25; i++) tabs = addTab(tabs, tab(`/p${i}`), 20);
    expect(tabs).toHaveLength(20);
    expect(tabs[0]?.path).toBe('/index');
    expect(tabs.at(-1)?.path).toBe('/p24');
    expect(tabs.some((item) => item.path === '/p0')).toBe(false);
  });

  it('closes one, others, left, right and all, keeping non-closable tabs', () => {
    const tabs = open('/index', '/a', '/b', '/c', '/d');
    expect(closeTab(tabs, '/b').map((item) => item.path)).toEqual(['/index', '/a', '/c', '/d']);
    expect(closeTab(tabs, '/index')).toHaveLength(5);
    expect(closeOthers(tabs, '/c').map((item) => item.path)).toEqual(['/index', '/c']);
    expect(closeLeft(tabs, '/c').map((item) => item.path)).toEqual(['/index', '/c', '/d']);
    expect(closeRight(tabs, '/b').map((item) => item.path)).toEqual(['/index', '/a', '/b']);
    expect(closeAll(tabs).map((item) => item.path)).toEqual(['/index']);
  });

  it('opens the last tab, or the root, after the active one closed', () => {
    expect(fallbackPath(open('/index', '/a'))).toBe('/a');
    expect(fallbackPath([])).toBe('/');
  });

  it('changes tab meta by route name or by title', () => {
    const tabs = open('/index', '/a');
    expect(changeTabsMeta(tabs, { name: 'a' }, { title: 'A!' })[1]?.meta.title).toBe('A!');
    expect(changeTabsMeta(tabs, { title: '/index' }, { icon: 'HomeOutlined' })[0]?.meta.icon).toBe('HomeOutlined');
  });

  it('keeps non-closable routes present, ahead of visited ones', () => {
    const home = tab('/index', { noClosable: true });
    const tabs = withAffixTabs(addTab([], tab('/a'), 20), [home]);
    expect(tabs.map((item) => item.path)).toEqual(['/index', '/a']);
    expect(withAffixTabs(tabs, [home])).toBe(tabs);
  });
});
