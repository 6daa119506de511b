import type { ResourceSessionConfig, SecretKeySelector, SessionConfig } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { apiConfigOf, hasPlainSecrets, resolveWebhook, secretNamesOf, storeSecrets } from '../../src/cluster/webhook-secrets.js';

const OWN = 'alpha-webhook-secrets';
const ref = (name: string, key: string) => ({ secretKeyRef: { name, key } });
const hook = <T extends object>(extra: T) => ({ url: 'https://hooks.example.com/in', events: ['*' as const], ...extra });
const noSecret = async () => undefined;

describe('cluster webhook secrets: the API config and the resource config', () => {
  it('stores every secret a client sends in the session Secret and refers to it; nothing secret is left in the config', async () => {
    const sent: SessionConfig = {
      metadata: { team: 'a' },
      webhooks: [
        hook({
          hmac: { key: 'hmac-secret' },
          customHeaders: [
            { name: 'X-Token', value: 'tok-1' },
            { name: 'X-Team', value: 'support' },
          ],
        }),
      ],
    };
    const { config, data } = await storeSecrets('alpha', sent, undefined, noSecret);
    const stored = config.webhooks![0]!;
    expect(stored.hmac).toEqual({ keyFrom: ref(OWN, expect.stringMatching(/-hmac$/)) });
    expect(stored.customHeaders).toEqual([
      { name: 'X-Token', valueFrom: ref(OWN, expect.stringMatching(/-header-0$/)) },
      { name: 'X-Team', valueFrom: ref(OWN, expect.stringMatching(/-header-1$/)) },
    ]);
    expect(JSON.stringify(config)).not.toMatch(/hmac-secret|tok-1|support/);
    expect(config.metadata).toEqual({ team: 'a' });
    expect(Object.values(data).sort()).toEqual(['hmac-secret', 'support', 'tok-1']);
    expect(data[stored.hmac!.keyFrom!.secretKeyRef.key]).toBe('hmac-secret');
    // A config without webhook secrets needs no Secret.
    expect((await storeSecrets('alpha', { webhooks: [hook({})] }, undefined, noSecret)).data).toEqual({});
  });

  it('resolves what it stored back to the values, and masks them for answers', async () => {
    const sent: SessionConfig = { webhooks: [hook({ hmac: { key: 'k1' }, customHeaders: [{ name: 'X-Token', value: 'tok' }] })] };
    const { config, data } = await storeSecrets('alpha', sent, undefined, noSecret);
    const read = async ({ name, key }: SecretKeySelector) => (name === OWN ? data[key]! : Promise.reject(new Error('other Secret')));
    expect(await resolveWebhook(config.webhooks![0]!, read)).toEqual(sent.webhooks![0]);
    expect(apiConfigOf(config)).toEqual({ webhooks: [hook({ hmac: { key: '***' }, customHeaders: [{ name: 'X-Token', value: '***' }] })] });
  });

  it('"***" keeps the stored secret: a user Secret stays named, the own Secret is rewritten with its value, a plain one moves into it', async () => {
    const stored: ResourceSessionConfig = {
      webhooks: [
        hook({ hmac: { keyFrom: ref('my-hooks', 'hmac') }, customHeaders: [{ name: 'X-Token', valueFrom: ref(OWN, 'old-key') }] }),
        {
          url: 'https://legacy.example.com/',
          events: ['message'],
          hmac: { key: 'plain-hmac' },
          customHeaders: [{ name: 'X-Legacy', value: 'plain-header' }],
        },
      ],
    };
    const sent = apiConfigOf(stored);
    const reads: SecretKeySelector[] = [];
    const read = async (ref: SecretKeySelector) => {
      reads.push(ref);
      return ref.name === OWN && ref.key === 'old-key' ? 'own-token' : undefined;
    };
    const { config, data } = await storeSecrets('alpha', sent, stored, read);
    expect(config.webhooks![0]!.hmac).toEqual({ keyFrom: ref('my-hooks', 'hmac') });
    const [own, legacy] = [config.webhooks![0]!, config.webhooks![1]!];
    expect(data[own.customHeaders![0]!.valueFrom!.secretKeyRef.key]).toBe('own-token');
    expect(data[legacy.hmac!.keyFrom!.secretKeyRef.key]).toBe('plain-hmac');
    expect(data[legacy.customHeaders![0]!.valueFrom!.secretKeyRef.key]).toBe('plain-header');
    expect(hasPlainSecrets(config)).toBe(false);
    expect(hasPlainSecrets(stored)).toBe(true);
    expect(secretNamesOf(config)).toEqual(new Set(['my-hooks', OWN]));
    expect(reads).toEqual([{ name: OWN, key: 'old-key' }]);
  });

  it('a new value replaces a stored one; "***" with nothing stored, or with the own Secret gone, is refused naming the field', async () => {
    const stored: ResourceSessionConfig = { webhooks: [hook({ hmac: { keyFrom: ref('my-hooks', 'hmac') } })] };
    const { config, data } = await storeSecrets('alpha', { webhooks: [hook({ hmac: { key: 'new' } })] }, stored, noSecret);
    expect(config.webhooks![0]!.hmac!.keyFrom!.secretKeyRef.name).toBe(OWN);
    expect(Object.values(data)).toEqual(['new']);

    const nothingStored = storeSecrets('alpha', { webhooks: [hook({ customHeaders: [{ name: 'X-Token', value: '***' }] })] }, stored, noSecret);
    await expect(nothingStored).rejects.toMatchObject({ statusCode: 400 });
    await expect(nothingStored).rejects.toThrow('body.config.webhooks[0].customHeaders[0].value');

    const lost: ResourceSessionConfig = { webhooks: [hook({ hmac: { keyFrom: ref(OWN, 'gone') } })] };
    const gone = storeSecrets('alpha', apiConfigOf(lost), lost, noSecret);
    await expect(gone).rejects.toBeInstanceOf(ApiError);
    await expect(gone).rejects.toThrow('body.config.webhooks[0].hmac.key');
  });

  it('a url with user info or a query goes into the Secret whole; the resource keeps it masked, a PUT of "***" keeps it', async () => {
    const url = 'https://alice:pa55@hooks.example.com/in?token=t0k&lang=en';
    const first = await storeSecrets('alpha', { webhooks: [hook({ url })] }, undefined, noSecret);
    const stored = first.config.webhooks![0]!;
    expect(stored.url).toBe('https://***:***@hooks.example.com/in?token=***&lang=***');
    expect(stored.urlFrom).toEqual(ref(OWN, expect.stringMatching(/-url$/)));
    expect(JSON.stringify(first.config)).not.toMatch(/alice|pa55|t0k/);
    expect(Object.values(first.data)).toEqual([url]);
    const read = async ({ name, key }: SecretKeySelector) => (name === OWN ? first.data[key] : undefined);
    expect((await resolveWebhook(stored, async (r) => (await read(r))!)).url).toBe(url);
    expect(apiConfigOf(first.config).webhooks![0]!.url).toBe(stored.url);
    expect(hasPlainSecrets(first.config)).toBe(false);
    expect(hasPlainSecrets({ webhooks: [hook({ url })] })).toBe(true);

    // Sent back as read, with one query value changed: the masked parts come from the Secret.
    const sent = { webhooks: [hook({ url: stored.url.replace('lang=***', 'lang=de') })] };
    const again = await storeSecrets('alpha', sent, first.config, read);
    expect(Object.values(again.data)).toEqual(['https://alice:pa55@hooks.example.com/in?token=t0k&lang=de']);
    // With the Secret gone there is nothing to keep: refused, naming the url.
    await expect(storeSecrets('alpha', sent, first.config, noSecret)).rejects.toThrow('body.config.webhooks[0].url');
    // A user's Secret holding the url stays named when the url comes back unchanged.
    const users: ResourceSessionConfig = { webhooks: [hook({ url: stored.url, urlFrom: ref('my-hooks', 'url') })] };
    const kept = await storeSecrets('alpha', apiConfigOf(users), users, async (r) => (r.name === 'my-hooks' ? url : undefined));
    expect(kept.config.webhooks![0]!.urlFrom).toEqual(ref('my-hooks', 'url'));
    expect(kept.data).toEqual({});
  });

  it('the proxy\'s password goes into the session Secret (passwordFrom); "***" keeps it, a user Secret stays named, a plain one moves', async () => {
    const sent: SessionConfig = { proxy: { server: 'proxy:3128', username: 'u', password: 'pw-1' } };
    const { config, data } = await storeSecrets('alpha', sent, undefined, noSecret);
    expect(config.proxy).toEqual({ server: 'proxy:3128', username: 'u', passwordFrom: ref(OWN, 'proxy-password') });
    expect(data).toEqual({ 'proxy-password': 'pw-1' });
    expect(apiConfigOf(config)).toEqual({ proxy: { server: 'proxy:3128', username: 'u', password: '***' } });
    expect(secretNamesOf(config)).toEqual(new Set([OWN]));
    expect(hasPlainSecrets(config)).toBe(false);
    const masked: SessionConfig = { proxy: { server: 'proxy:3128', password: '***' } };
    const own = async ({ name, key }: SecretKeySelector) => (name === OWN ? data[key] : undefined);
    expect(await storeSecrets('alpha', masked, config, own)).toEqual({
      config: { proxy: { server: 'proxy:3128', passwordFrom: ref(OWN, 'proxy-password') } },
      data,
    });
    const users: ResourceSessionConfig = { proxy: { server: 'proxy:3128', passwordFrom: ref('my-proxy', 'pw') } };
    expect(await storeSecrets('alpha', masked, users, noSecret)).toEqual({ config: users, data: {} });
    const plain: ResourceSessionConfig = { proxy: { server: 'proxy:3128', password: 'old' } };
    expect(hasPlainSecrets(plain)).toBe(true);
    expect((await storeSecrets('alpha', masked, plain, noSecret)).data).toEqual({ 'proxy-password': 'old' });
    // Kept only for the same server: the password must not go to another proxy.
    await expect(storeSecrets('alpha', { proxy: { server: 'other:3128', password: '***' } }, config, own)).rejects.toThrow(/proxy\.password/);
  });

  it('a secret that cannot be read fails the resolution with why', async () => {
    const config = hook({ hmac: { keyFrom: ref('missing', 'hmac') } });
    await expect(resolveWebhook(config, async () => Promise.reject(new Error("Secret 'missing' not found")))).rejects.toThrow(
      "Secret 'missing' not found",
    );
    // A webhook with no Secret in it is sent as it is.
    const plain = hook({ hmac: { key: 'k' } });
    expect(await resolveWebhook(plain, () => Promise.reject(new Error('not asked')))).toBe(plain);
  });
});

describe('cluster webhook secrets: a Standard Webhooks key rotation', () => {
  const NEW = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
  const OLD = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;

  it('keeps the previous key in the session Secret beside the current one, names both, and resolves both while the window lasts', async () => {
    const until = new Date(Date.now() + 3600_000).toISOString();
    const hmac = { key: NEW, scheme: 'standard-webhooks' as const, previous: { key: OLD, until } };
    const { config, data } = await storeSecrets('alpha', { webhooks: [hook({ hmac })] }, undefined, noSecret);
    const stored = config.webhooks![0]!;
    expect(stored.hmac).toEqual({
      scheme: 'standard-webhooks',
      keyFrom: ref(OWN, expect.stringMatching(/-hmac$/)),
      previous: { keyFrom: ref(OWN, expect.stringMatching(/-hmac-previous$/)), until },
    });
    expect(JSON.stringify(config)).not.toContain(OLD);
    expect(data[stored.hmac!.previous!.keyFrom!.secretKeyRef.key]).toBe(OLD);
    expect(apiConfigOf(config).webhooks![0]!.hmac).toEqual({ key: '***', scheme: 'standard-webhooks', previous: { key: '***', until } });
    const read = async ({ key }: SecretKeySelector) => data[key]!;
    expect((await resolveWebhook(stored, read)).hmac).toEqual(hmac);

    // "***" keeps the previous key where it is.
    const kept = await storeSecrets('alpha', apiConfigOf(config), config, async ({ key }) => data[key]);
    expect(kept.config.webhooks![0]!.hmac).toEqual(stored.hmac);
    expect(kept.data).toEqual(data);
  });

  it('does not read a previous key past its date: a removed Secret key then fails no delivery', async () => {
    const stored = hook({
      hmac: {
        scheme: 'standard-webhooks' as const,
        keyFrom: ref('mine', 'new'),
        previous: { keyFrom: ref('mine', 'gone'), until: '2020-01-01T00:00:00Z' },
      },
    });
    const read = async ({ key }: SecretKeySelector) => (key === 'new' ? NEW : Promise.reject(new Error(`no key ${key}`)));
    expect((await resolveWebhook(stored, read)).hmac).toEqual({ key: NEW, scheme: 'standard-webhooks' });
    expect(secretNamesOf({ webhooks: [stored] })).toEqual(new Set(['mine']));
    expect(
      hasPlainSecrets({ webhooks: [hook({ hmac: { keyFrom: ref('mine', 'new'), previous: { key: OLD, until: '2020-01-01T00:00:00Z' } } })] }),
    ).toBe(true);
  });
});
