import { useSyncExternalStore } from 'react';

/**
 * The signed-in token, kept in sessionStorage: it lasts as long as the browser tab's session
 * and is never written where another session or a later visitor could read it.
 */
const KEY = 'vozgate.console.token';
const listeners = new Set<() => void>();

export function currentToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function signIn(token: string): void {
  sessionStorage.setItem(KEY, token);
  listeners.forEach((listener) => listener());
}

export function signOut(): void {
  sessionStorage.removeItem(KEY);
  listeners.forEach((listener) => listener());
}

export function useToken(): string | null {
  return useSyncExternalStore(
    (onChange) => {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
    currentToken,
  );
}
