import { create } from 'zustand';
import { addTab, changeTabsMeta, closeAll, closeLeft, closeOthers, closeRight, closeTab, type Tab, withAffixTabs } from '../app/tabs';
import { settings } from '../lib/settings';

interface TabsState {
  tabs: Tab[];
  add(tab: Tab): void;
  affix(tabs: Tab[]): void;
  close(path: string): void;
  closeOthers(path: string): void;
  closeLeft(path: string): void;
  closeRight(path: string): void;
  closeAll(): void;
  changeMeta(match: { name?: string; title?: string }, meta: Partial<Tab['meta']>): void;
  reset(): void;
}

export const useTabs = create<TabsState>((set) => ({
  tabs: [],
  add: (tab) => set((state) => ({ tabs: addTab(state.tabs, tab, settings.tabsMax) })),
  affix: (tabs) => set((state) => ({ tabs: withAffixTabs(state.tabs, tabs) })),
  close: (path) => set((state) => ({ tabs: closeTab(state.tabs, path) })),
  closeOthers: (path) => set((state) => ({ tabs: closeOthers(state.tabs, path) })),
  closeLeft: (path) => set((state) => ({ tabs: closeLeft(state.tabs, path) })),
  closeRight: (path) => set((state) => ({ tabs: closeRight(state.tabs, path) })),
  closeAll: () => set((state) => ({ tabs: closeAll(state.tabs) })),
  changeMeta: (match, meta) => set((state) => ({ tabs: changeTabsMeta(state.tabs, match, meta) })),
  reset: () => set({ tabs: [] }),
}));
