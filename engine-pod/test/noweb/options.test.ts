import { OutboundPolicy } from '@switchboard/kube';
import { describe, expect, it } from 'vitest';
import { DEFAULT_NOWEB_OPTIONS, nowebOptionsFromEnv } from '../../src/index.js';
import { keepAliveIntervalFor } from '../../src/engines/noweb/silence-watch.js';
import { ignoredChats, socketSettings } from '../../src/engines/noweb/socket-settings.js';

describe('NOWEB options from the environment', () => {
  it('defaults to WhatsApp Web, not marking the account online on connect', () => {
    const options = nowebOptionsFromEnv({});
    expect(options.waUrl).toBe('wss://web.whatsapp.com/ws/chat');
    expect(options.markOnlineOnConnect).toBe(false);
    expect(options.logger.level).toBe('silent');
    expect(options).toBe(DEFAULT_NOWEB_OPTIONS);
  });

  it('takes the websocket address from SWITCHBOARD_NOWEB_WS_URL', () => {
    expect(nowebOptionsFromEnv({ SWITCHBOARD_NOWEB_WS_URL: 'ws://127.0.0.1:7000/ws/chat' }).waUrl).toBe('ws://127.0.0.1:7000/ws/chat');
  });

  it('refuses a value that is not a ws: or wss: URL, naming the variable', () => {
    expect(() => nowebOptionsFromEnv({ SWITCHBOARD_NOWEB_WS_URL: 'not a url' })).toThrow(/^SWITCHBOARD_NOWEB_WS_URL: not a URL/);
    expect(() => nowebOptionsFromEnv({ SWITCHBOARD_NOWEB_WS_URL: 'http://x/ws' })).toThrow(/^SWITCHBOARD_NOWEB_WS_URL: must be a ws: or wss: URL/);
  });

  it('gives up after 10 connection attempts in a row, or SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS (1 to 1000)', () => {
    expect(DEFAULT_NOWEB_OPTIONS.connectAttempts).toBe(10);
    expect(nowebOptionsFromEnv({ SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS: '3' }).connectAttempts).toBe(3);
    for (const bad of ['0', '1001', '2.5', 'many', '-1']) {
      expect(() => nowebOptionsFromEnv({ SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS: bad })).toThrow(
        /^SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS: must be a whole number from 1 to 1000/,
      );
    }
  });

  it("presents Baileys' client version unless SWITCHBOARD_NOWEB_CLIENT_VERSION sets one, refusing one that is no version", () => {
    expect(DEFAULT_NOWEB_OPTIONS.clientVersion).toBeUndefined();
    expect(nowebOptionsFromEnv({ SWITCHBOARD_NOWEB_CLIENT_VERSION: '2.3000.1023456789' }).clientVersion).toBe('2.3000.1023456789');
    expect(() => nowebOptionsFromEnv({ SWITCHBOARD_NOWEB_CLIENT_VERSION: '2.3000.x' })).toThrow(
      'SWITCHBOARD_NOWEB_CLIENT_VERSION: must be three whole numbers joined by dots, as "2.3000.1023456789", got "2.3000.x"',
    );
  });

  it('reconnects a silent connection within 60 s, or SWITCHBOARD_SILENCE_TIMEOUT_MS (1000 to 120000), pinging Baileys thrice within it', () => {
    expect(DEFAULT_NOWEB_OPTIONS.silenceTimeoutMs).toBe(60_000);
    expect(nowebOptionsFromEnv({ SWITCHBOARD_SILENCE_TIMEOUT_MS: '3000' }).silenceTimeoutMs).toBe(3_000);
    expect(() => nowebOptionsFromEnv({ SWITCHBOARD_SILENCE_TIMEOUT_MS: '120001' })).toThrow(
      /^SWITCHBOARD_SILENCE_TIMEOUT_MS: must be a whole number of milliseconds from 1000 to 120000/,
    );
    expect(keepAliveIntervalFor(3_000)).toBe(1_000);
  });

  it('backs off 1, 2, 4 ... seconds between reconnects, at most 30', () => {
    expect([1, 2, 3, 6, 20].map(DEFAULT_NOWEB_OPTIONS.reconnectDelayMs)).toEqual([1_000, 2_000, 4_000, 30_000, 30_000]);
  });
});

describe('NOWEB socket settings from the session config', () => {
  it('maps client, noweb and ignore onto the Baileys socket, and leaves the defaults without them', () => {
    const defaults = { markOnlineOnConnect: false, outbound: new OutboundPolicy() };
    expect(socketSettings({}, defaults)).toEqual({ markOnlineOnConnect: false, syncFullHistory: false });
    const set = socketSettings(
      { client: { deviceName: 'MacOS', browserName: 'Firefox' }, noweb: { markOnline: true, store: { enabled: true, fullSync: true } } },
      defaults,
    );
    expect(set).toMatchObject({ markOnlineOnConnect: true, syncFullHistory: true, browser: ['MacOS', 'Firefox', expect.any(String)] });
    const ignore = ignoredChats({ channels: true, broadcast: true, groups: null });
    expect(['x@newsletter', 'status@broadcast', '1234@broadcast'].map(ignore)).toEqual([true, true, true]);
    expect(['1@g.us', '15551230001@s.whatsapp.net'].map(ignore)).toEqual([false, false]);
  });
});
