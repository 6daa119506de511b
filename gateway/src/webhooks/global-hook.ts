import { EVENT_NAMES, WebhookConfig } from '@switchboard/protocol';

const KNOWN_FILTERS = new Set<string>([...EVENT_NAMES, '*']);

/** Where each config field comes from, to name the variable in errors. */
const VARIABLE_OF: Record<string, string> = {
  url: 'URL',
  events: 'EVENTS',
  hmac: 'HMAC_KEY',
  'retries.policy': 'RETRIES_POLICY',
  'retries.delaySeconds': 'RETRIES_DELAY_SECONDS',
  'retries.attempts': 'RETRIES_ATTEMPTS',
  'retries.maxDelaySeconds': 'RETRIES_MAX_DELAY_SECONDS',
  'retries.jitter': 'RETRIES_JITTER',
  customHeaders: 'CUSTOM_HEADERS',
  timeoutSeconds: 'TIMEOUT_SECONDS',
};

/**
 * The one webhook for all sessions (spec 6.1), from `<prefix>URL`, `EVENTS`, `HMAC_KEY`,
 * `RETRIES_POLICY`, `RETRIES_DELAY_SECONDS`, `RETRIES_ATTEMPTS`, `RETRIES_MAX_DELAY_SECONDS`,
 * `RETRIES_JITTER` (`true` or `false`), `TIMEOUT_SECONDS` and `CUSTOM_HEADERS`.
 * Null without a URL. An empty variable counts as unset, as compose files often write `NAME=`.
 *
 * Unset EVENTS means `*`: setting only a URL should deliver something rather than nothing, and
 * "no filter = everything" is the rule a reader guesses. The spec advises against `*` in
 * production, so the README says to list the events there.
 *
 * Invalid values stop startup with the variable and the reason; values never appear in the
 * message, as the key and custom headers are secrets.
 */
export function globalWebhookFromEnv(env: NodeJS.ProcessEnv, prefix = 'SWITCHBOARD_HOOK_'): WebhookConfig | null {
  const read = (name: string): string | undefined => {
    const value = env[prefix + name]?.trim();
    return value ? value : undefined;
  };
  const fail = (name: string, reason: string): never => {
    throw new Error(`invalid global webhook: ${prefix}${name}: ${reason}`);
  };

  const url = read('URL');
  if (url === undefined) return null;

  const events = (read('EVENTS') ?? '*')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (events.length === 0) fail('EVENTS', 'must list event names separated by "," or be "*"');
  // Event names are no secret, so the unknown one is named: that is the fastest fix for a typo.
  const unknown = events.find((e) => !KNOWN_FILTERS.has(e));
  if (unknown !== undefined) fail('EVENTS', `unknown event name "${unknown}"`);

  const number = (name: string): number | undefined => {
    const text = read(name);
    if (text === undefined) return undefined;
    const value = Number(text);
    return Number.isFinite(value) ? value : fail(name, 'must be a number');
  };
  const policy = read('RETRIES_POLICY');
  const delaySeconds = number('RETRIES_DELAY_SECONDS');
  const attempts = number('RETRIES_ATTEMPTS');
  const maxDelaySeconds = number('RETRIES_MAX_DELAY_SECONDS');
  const jitterText = read('RETRIES_JITTER');
  const jitter =
    jitterText === undefined
      ? undefined
      : jitterText === 'true'
        ? true
        : jitterText === 'false'
          ? false
          : fail('RETRIES_JITTER', 'must be true or false');
  const hasRetries = [policy, delaySeconds, attempts, maxDelaySeconds, jitter].some((value) => value !== undefined);
  const timeoutSeconds = number('TIMEOUT_SECONDS');

  const key = read('HMAC_KEY');
  const headers = read('CUSTOM_HEADERS');
  const candidate = {
    url,
    events,
    hmac: key === undefined ? null : { key },
    retries: hasRetries ? { policy, delaySeconds, attempts, maxDelaySeconds, jitter } : null,
    customHeaders: headers === undefined ? null : parseCustomHeaders(headers, (reason) => fail('CUSTOM_HEADERS', reason)),
    ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
  };

  const parsed = WebhookConfig.safeParse(candidate);
  if (parsed.success) return parsed.data;
  const reasons = parsed.error.issues.map((issue) => {
    const [field, sub, leaf] = issue.path.map(String);
    const source = field === 'retries' ? `retries.${sub}` : String(field);
    const variable = VARIABLE_OF[source] ?? source;
    const where = field === 'customHeaders' && sub !== undefined ? ` (entry ${Number(sub) + 1}${leaf ? ` ${leaf}` : ''})` : '';
    return `${prefix}${variable}${where}: ${issue.message}`;
  });
  throw new Error(`invalid global webhook: ${reasons.join('; ')}`);
}

/** `Name:Value;Name:Value`. A value may hold ':' (split at the first one) but not ';'. */
function parseCustomHeaders(text: string, fail: (reason: string) => never): { name: string; value: string }[] {
  const entries = text
    .split(';')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  return entries.map((entry, index) => {
    const colon = entry.indexOf(':');
    if (colon <= 0) fail(`entry ${index + 1} must be "Name:Value"`);
    return { name: entry.slice(0, colon).trim(), value: entry.slice(colon + 1).trim() };
  });
}
