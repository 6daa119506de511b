import { EVENT_NAMES, MAX_PREVIOUS_KEY_DAYS, WebhookConfig } from '@switchboard/protocol';
import { SECRET_RULE, STANDARD_WEBHOOKS, standardSecretBytes } from './standard-webhooks.js';

const KNOWN_FILTERS = new Set<string>([...EVENT_NAMES, '*']);

/** Where each config field comes from, to name the variable in errors. */
const VARIABLE_OF: Record<string, string> = {
  url: 'URL',
  events: 'EVENTS',
  hmac: 'HMAC_KEY',
  'hmac.key': 'HMAC_KEY',
  'hmac.scheme': 'HMAC_SCHEME',
  'hmac.previous': 'HMAC_PREVIOUS_KEY',
  'hmac.previous.key': 'HMAC_PREVIOUS_KEY',
  'hmac.previous.until': 'HMAC_PREVIOUS_UNTIL',
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
 * `HMAC_SCHEME`, `HMAC_PREVIOUS_KEY` and `HMAC_PREVIOUS_UNTIL` (a Standard Webhooks key
 * rotation), `RETRIES_POLICY`, `RETRIES_DELAY_SECONDS`, `RETRIES_ATTEMPTS`, `RETRIES_MAX_DELAY_SECONDS`,
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
  const scheme = read('HMAC_SCHEME');
  const previousKey = read('HMAC_PREVIOUS_KEY');
  const until = read('HMAC_PREVIOUS_UNTIL');
  if (key === undefined && (scheme ?? previousKey ?? until) !== undefined) fail('HMAC_KEY', 'must be set with HMAC_SCHEME and HMAC_PREVIOUS_*');
  if ((previousKey === undefined) !== (until === undefined)) fail('HMAC_PREVIOUS_UNTIL', 'HMAC_PREVIOUS_KEY and HMAC_PREVIOUS_UNTIL go together');
  const previous = previousKey === undefined ? {} : { previous: { key: previousKey, until } };
  const headers = read('CUSTOM_HEADERS');
  const candidate = {
    url,
    events,
    hmac: key === undefined ? null : { key, ...(scheme === undefined ? {} : { scheme }), ...previous },
    retries: hasRetries ? { policy, delaySeconds, attempts, maxDelaySeconds, jitter } : null,
    customHeaders: headers === undefined ? null : parseCustomHeaders(headers, (reason) => fail('CUSTOM_HEADERS', reason)),
    ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
  };

  const parsed = WebhookConfig.safeParse(candidate);
  if (parsed.success) {
    standardWebhooksRules(parsed.data, (name, reason) => fail(name, reason));
    return parsed.data;
  }
  const reasons = parsed.error.issues.map((issue) => {
    const [field, sub, leaf] = issue.path.map(String);
    const source = field === 'retries' || field === 'hmac' ? [field, sub, leaf].filter((part) => part !== undefined).join('.') : String(field);
    const variable = VARIABLE_OF[source] ?? source;
    const where = field === 'customHeaders' && sub !== undefined ? ` (entry ${Number(sub) + 1}${leaf ? ` ${leaf}` : ''})` : '';
    return `${prefix}${variable}${where}: ${issue.message}`;
  });
  throw new Error(`invalid global webhook: ${reasons.join('; ')}`);
}

/**
 * The rules the API applies to a webhook's signing (sessions/webhook-signing.ts), for a config
 * read at startup: a past `until` is taken (a restart after the rotation window), a later one
 * than the longest window is not.
 */
function standardWebhooksRules(hook: WebhookConfig, fail: (name: string, reason: string) => never): void {
  const hmac = hook.hmac;
  if (!hmac) return;
  if (hmac.scheme !== STANDARD_WEBHOOKS) {
    if (hmac.previous) fail('HMAC_PREVIOUS_KEY', `is for key rotation of HMAC_SCHEME=${STANDARD_WEBHOOKS} only`);
    return;
  }
  if (!standardSecretBytes(hmac.key)) fail('HMAC_KEY', SECRET_RULE);
  if (!hmac.previous) return;
  if (!standardSecretBytes(hmac.previous.key)) fail('HMAC_PREVIOUS_KEY', SECRET_RULE);
  if (Date.parse(hmac.previous.until) > Date.now() + MAX_PREVIOUS_KEY_DAYS * 24 * 3600 * 1000) {
    fail('HMAC_PREVIOUS_UNTIL', `must be at most ${MAX_PREVIOUS_KEY_DAYS} days ahead`);
  }
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
