import type { RouteMeta } from '@parley/protocol';
import { create } from 'zustand';

interface RoutesState {
  /** Meta merged into named routes at run time (badges, titles), on top of the route tree. */
  overrides: Record<string, Partial<RouteMeta>>;
  changeMenuMeta(name: string, meta: Partial<RouteMeta>): void;
  reset(): void;
}

export const useRoutes = create<RoutesState>((set) => ({
  overrides: {},
  changeMenuMeta: (name, meta) => set((state) => ({ overrides: { ...state.overrides, [name]: { ...state.overrides[name], ...meta } } })),
  reset: () => set({ overrides: {} }),
}));

if (typeof window !== 'undefined') window.addEventListener('session-reset', () => useRoutes.getState().reset());
