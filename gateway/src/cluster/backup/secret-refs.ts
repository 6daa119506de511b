import { SecretKeySelector } from '@switchboard/protocol';

/**
 * Every `secretKeyRef` in a session's spec (webhook urls, HMAC keys, headers, the proxy's
 * password), found by shape rather than by path, so a field that names a Secret later is not
 * left out of a backup's list of what a restore needs.
 */
export function secretRefsIn(value: unknown): SecretKeySelector[] {
  const found = new Map<string, SecretKeySelector>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === 'object') {
      for (const [field, child] of Object.entries(node)) {
        const ref = field === 'secretKeyRef' ? SecretKeySelector.safeParse(child) : null;
        if (ref?.success) found.set(`${ref.data.name}/${ref.data.key}`, ref.data);
        else visit(child);
      }
    }
  };
  visit(value);
  return [...found.values()];
}
