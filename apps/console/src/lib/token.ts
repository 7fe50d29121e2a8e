import { settings } from './settings';

/** The session token lives in local storage under one fixed key (seed §9). */
export function readToken(): string {
  try {
    return localStorage.getItem(settings.tokenKey) ?? '';
  } catch {
    return '';
  }
}

export function writeToken(token: string): void {
  if (token) localStorage.setItem(settings.tokenKey, token);
  else localStorage.removeItem(settings.tokenKey);
}
