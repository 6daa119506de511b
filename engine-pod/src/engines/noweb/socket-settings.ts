import type { EngineSettings, IgnoreConfig, ProxyConfig } from '@switchboard/protocol';
import type { UserFacingSocketConfig } from '@whiskeysockets/baileys';
import { HttpsProxyAgent } from 'https-proxy-agent';

/** Baileys' own version string of the linked-device description: kept, only the names change. */
const CLIENT_VERSION = '22.04.4';

/**
 * What a session's engine settings (its config's proxy, ignore, client, noweb) change in the
 * Baileys socket. Left out settings leave the library's (or the engine options') defaults.
 */
export function socketSettings(settings: EngineSettings, defaults: { markOnlineOnConnect: boolean }): Partial<UserFacingSocketConfig> {
  const { proxy, ignore, client, noweb } = settings;
  const agent = proxy ? proxyAgent(proxy) : undefined;
  return {
    markOnlineOnConnect: noweb?.markOnline ?? defaults.markOnlineOnConnect,
    syncFullHistory: noweb?.store?.fullSync ?? false,
    // The websocket to the server and media uploads go through the proxy.
    ...(agent ? { agent, fetchAgent: agent } : {}),
    ...(ignore ? { shouldIgnoreJid: ignoredChats(ignore) } : {}),
    // The phone lists the device as "<browser> (<device>)".
    ...(client ? { browser: [client.deviceName ?? 'Ubuntu', client.browserName ?? 'Chrome', CLIENT_VERSION] } : {}),
  };
}

/** An HTTP CONNECT tunnel through `server`, with Basic proxy authentication when a user is given. */
export function proxyAgent(proxy: ProxyConfig): HttpsProxyAgent<string> {
  const base = /^https?:\/\//.test(proxy.server) ? proxy.server : `http://${proxy.server}`;
  const url = new URL(base);
  if (proxy.username) url.username = encodeURIComponent(proxy.username);
  if (proxy.password) url.password = encodeURIComponent(proxy.password);
  return new HttpsProxyAgent(url.href);
}

/**
 * The chats whose events the server's stanzas are dropped for (Baileys acks and forgets them):
 * `status` is status@broadcast, `broadcast` every @broadcast (lists and status), `groups`
 * @g.us, `channels` @newsletter.
 */
export function ignoredChats(ignore: IgnoreConfig): (jid: string) => boolean {
  return (jid) =>
    (ignore.status === true && jid === 'status@broadcast') ||
    (ignore.broadcast === true && jid.endsWith('@broadcast')) ||
    (ignore.groups === true && jid.endsWith('@g.us')) ||
    (ignore.channels === true && jid.endsWith('@newsletter'));
}
