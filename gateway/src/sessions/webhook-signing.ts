import {
  type FieldIssue,
  GENERATE_HMAC_KEY,
  type HmacConfig,
  MAX_PREVIOUS_KEY_DAYS,
  type SessionConfig,
  type SessionDTO,
} from '@switchboard/protocol';
import { ApiError } from '../http/errors.js';
import { generateStandardSecret, SECRET_RULE, STANDARD_WEBHOOKS, standardSecretBytes } from '../webhooks/standard-webhooks.js';
import { SECRET_PLACEHOLDER } from './config-secrets.js';

/** A key the gateway made for the webhook at `index`: the answer of the call that made it shows it, once. */
export interface GeneratedKey {
  readonly index: number;
  readonly key: string;
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * The signing rules of webhooks a client sends (create, PUT, the deprecated start), beyond their
 * schema: a Standard Webhooks key in the `whsec_` form, a previous key only with that scheme and
 * within its window, and `"generate"` replaced by a new secret. Any broken rule is a 422 naming
 * each field, before anything is stored. `"***"` (a kept secret) is checked where it is restored.
 */
export function prepareWebhookSigning(
  config: SessionConfig | undefined,
  path = 'body.config',
  now = Date.now(),
): { config: SessionConfig | undefined; generated: GeneratedKey[] } {
  if (!config?.webhooks?.some((hook) => hook.hmac)) return { config, generated: [] };
  const issues: FieldIssue[] = [];
  const generated: GeneratedKey[] = [];
  const webhooks = config.webhooks.map((hook, index) => {
    if (!hook.hmac) return hook;
    const at = `${path}.webhooks[${index}].hmac`;
    issues.push(...signingIssues(hook.hmac, at, now));
    if (hook.hmac.key !== GENERATE_HMAC_KEY || hook.hmac.scheme !== STANDARD_WEBHOOKS) return hook;
    const key = generateStandardSecret();
    generated.push({ index, key });
    return { ...hook, hmac: { ...hook.hmac, key } };
  });
  if (issues.length > 0) {
    throw new ApiError(422, issues.map((issue) => `${issue.path}: ${issue.reason}`).join('; '), issues);
  }
  return { config: { ...config, webhooks }, generated };
}

function signingIssues(hmac: HmacConfig, at: string, now: number): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const kept = (key: string) => key === SECRET_PLACEHOLDER;
  if (hmac.scheme !== STANDARD_WEBHOOKS) {
    if (hmac.key === GENERATE_HMAC_KEY) {
      issues.push({ path: `${at}.key`, reason: `"${GENERATE_HMAC_KEY}" makes a Standard Webhooks secret: set scheme "${STANDARD_WEBHOOKS}" too` });
    }
    if (hmac.previous) issues.push({ path: `${at}.previous`, reason: `is for key rotation of scheme "${STANDARD_WEBHOOKS}" only` });
    return issues;
  }
  if (hmac.key !== GENERATE_HMAC_KEY && !kept(hmac.key) && !standardSecretBytes(hmac.key)) {
    issues.push({ path: `${at}.key`, reason: `${SECRET_RULE}, or "${GENERATE_HMAC_KEY}" for the gateway to make one` });
  }
  const previous = hmac.previous;
  if (!previous) return issues;
  if (!kept(previous.key) && !standardSecretBytes(previous.key)) {
    issues.push({ path: `${at}.previous.key`, reason: `${SECRET_RULE} (the key being replaced)` });
  }
  const until = Date.parse(previous.until);
  if (until > now + MAX_PREVIOUS_KEY_DAYS * DAY_MS) {
    issues.push({ path: `${at}.previous.until`, reason: `must be at most ${MAX_PREVIOUS_KEY_DAYS} days ahead` });
  } else if (until <= now && !kept(previous.key)) {
    // A kept key may be given a date already past: that ends its window now.
    issues.push({ path: `${at}.previous.until`, reason: 'must be in the future' });
  }
  return issues;
}

/** The answer with each key made by this call in its place, instead of the placeholder: the one time it is shown. */
export function showGenerated<T extends SessionDTO>(answer: T, generated: readonly GeneratedKey[]): T {
  if (generated.length === 0 || !answer.config.webhooks) return answer;
  const webhooks = answer.config.webhooks.map((hook, index) => {
    const made = generated.find((g) => g.index === index);
    return made && hook.hmac ? { ...hook, hmac: { ...hook.hmac, key: made.key } } : hook;
  });
  return { ...answer, config: { ...answer.config, webhooks } };
}
