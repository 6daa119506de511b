/**
 * A webhook url as log lines may show it: without user info and query, where receivers put
 * their tokens. Enough to tell which receiver it was.
 */
export function logUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(invalid url)';
  }
}
