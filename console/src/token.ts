/**
 * The signed-in token: in sessionStorage only (gone when the tab closes, never in a URL, a cookie
 * or localStorage), sent by api.ts as `APS-Token`.
 */
const TOKEN_KEY = "aps-gen-console-token";

export function storedToken(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function saveToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function clearToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}
