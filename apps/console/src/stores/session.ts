import { create } from 'zustand';
import { readToken, writeToken } from '../lib/token';

interface SessionState {
  token: string;
  setToken(token: string): void;
  /** Forgets the token; user info, routes and tabs are reset by their own owners on the 'session-reset' event. */
  clear(): void;
}

export const useSession = create<SessionState>((set) => ({
  token: readToken(),
  setToken(token) {
    writeToken(token);
    set({ token });
  },
  clear() {
    writeToken('');
    set({ token: '' });
  },
}));
