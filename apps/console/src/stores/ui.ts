import { create } from 'zustand';

export interface ErrorLogEntry {
  url: string;
  message: string;
  stack: string;
  time: string;
}

interface UiState {
  /** Pending calls that show the loading overlay. */
  loading: number;
  /** Bumped to remount a cached page ("reload the view"). */
  reloadKeys: Record<string, number>;
  errors: ErrorLogEntry[];
  setLoading(on: boolean): void;
  reload(path: string): void;
  addError(entry: ErrorLogEntry): void;
  clearErrors(): void;
}

export const useUi = create<UiState>((set) => ({
  loading: 0,
  reloadKeys: {},
  errors: [],
  setLoading: (on) => set((state) => ({ loading: Math.max(0, state.loading + (on ? 1 : -1)) })),
  reload: (path) => set((state) => ({ reloadKeys: { ...state.reloadKeys, [path]: (state.reloadKeys[path] ?? 0) + 1 } })),
  addError: (entry) => set((state) => ({ errors: [entry, ...state.errors].slice(0, 100) })),
  clearErrors: () => set({ errors: [] }),
}));
