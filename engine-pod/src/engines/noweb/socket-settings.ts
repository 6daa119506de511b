import type { OutboundPolicy } from '@switchboard/kube/pod';
import type { EngineSettings, IgnoreConfig, ProxyConfig } from '@switchboard/protocol';
import type { UserFacingSocketConfig } from '@whiskeysockets/baileys';
import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { BlockedAddressError, guardedLookup } from '../../outbound/guarded-lookup.js';

/** Baileys' own version string of the linked-device description: kept, only the names change. */
const CLIENT_VERSION = '22.04.4';

/**
 * What a session's engine settings (its config's proxy, ignore, client, noweb) change in the
 * Baileys socket. Left out settings leave the library's (or the engine options') defaults.
 */
export function socketSettings(
  settings: EngineSettings,
  defaults: { markOnlineOnConnect: boolean; outbound: OutboundPolicy },
): Partial<UserFacingSocketConfig> {
  const { proxy, ignore, client, noweb } = settings;
  const agent = proxy ? proxyAgent(proxy, defaults.outbound) : undefined;
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

/** The proxy `server` as a URL: `host:port` means `http://host:port`. */
export function proxyServerUrl(server: string): URL {
  return new URL(/^https?:\/\//.test(server) ? server : `http://${server}`);
}

/**
 * An HTTP CONNECT tunnel through `server`, with Basic proxy authentication when a user is given.
 * The proxy is an address the user chose, so it is held to the outbound address policy like a
 * webhook: its literal address or named host before connecting, the addresses its name resolves
 * to in the lookup the socket connects with. A refused proxy is never dialed.
 */
function proxyAgent(proxy: ProxyConfig, policy: OutboundPolicy): HttpsProxyAgent<string> {
  const url = proxyServerUrl(proxy.server);
  if (proxy.username) url.username = encodeURIComponent(proxy.username);
  if (proxy.password) url.password = encodeURIComponent(proxy.password);
  return new GuardedProxyAgent(url.href, policy);
}

class GuardedProxyAgent extends HttpsProxyAgent<string> {
  constructor(
    proxy: string,
    private readonly policy: OutboundPolicy,
  ) {
    super(proxy, { lookup: guardedLookup(policy) });
  }

  override async connect(req: ClientRequest, opts: Parameters<HttpsProxyAgent<string>['connect']>[1]): Promise<Socket> {
    const refusal = this.policy.refusalOfUrl(this.proxy);
    if (refusal) throw new BlockedAddressError(refusal);
    return super.connect(req, opts);
  }
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
