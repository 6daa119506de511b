import type { ChatPresences, PresenceData, PresenceStatus } from '@switchboard/protocol';
import type { CommandArgs } from '../../capabilities/chatting.js';
import { CommandError } from '../../command-error.js';
import { wid } from '../webjs/webjs-ids.js';
import type { WebjsWid } from '../webjs/webjs-client.js';
import type { WppPage } from './wpp-client.js';
import type { WppConnection } from './wpp-connection.js';
import { describeWppError } from './wpp-send-options.js';

/**
 * wa-js's `chat.presence_change` as WPPConnect's `onPresenceChanged` hands it over: the chat, and
 * its chat state as WhatsApp Web's presence model has it (`available`, `unavailable`, `typing`,
 * `recording_audio`); a group's lists the members whose state it knows.
 */
export interface WppPresenceEvent {
  readonly id: WebjsWid;
  readonly isGroup?: boolean;
  readonly state?: string;
  readonly participants?: readonly { readonly id: WebjsWid; readonly state?: string }[];
}

/** The slice of WPPConnect's client (its listener layer) the presence operations use. */
export interface WppPresenceClient {
  readonly page: WppPage;
  onPresenceChanged(callback: (event: WppPresenceEvent) => void): unknown;
}

/**
 * WhatsApp Web's chat states as the spec's presences (2.7). WhatsApp Web turns a contact's pause
 * into `available` (or `unavailable`) itself, so a pause reaches WPP as online; the other names are
 * those WPPConnect's typings give.
 */
const PRESENCE: Readonly<Record<string, PresenceStatus>> = {
  available: 'online',
  unavailable: 'offline',
  typing: 'typing',
  composing: 'typing',
  recording_audio: 'recording',
  recording: 'recording',
  paused: 'paused',
};

/**
 * Other accounts' presence on WPP: `presence.subscribe` is wa-js's `WPP.contact.subscribePresence`
 * (WhatsApp Web's presence bridge, then its presence collection), and every `chat.presence_change`
 * wa-js reports (WPPConnect's `onPresenceChanged`) is a `presence.update`. The presences heard are
 * kept per chat, as NOWEB keeps them, for `presence.get` and `presence.list`.
 */
export class WppPresence {
  private readonly heard = new Map<string, ChatPresences>();
  /** Reports in the order the page made them: a last seen is read from the page in between. */
  private reports: Promise<void> = Promise.resolve();

  constructor(private readonly connection: WppConnection) {}

  listen(client: WppPresenceClient): void {
    client.onPresenceChanged((event) => {
      // One report that fails is logged, and the next still goes out.
      this.reports = this.reports
        .then(() => this.report(client, event))
        .catch((error: unknown) => {
          const { context } = this.connection;
          context.log.warn({ session: context.session, err: error }, 'WPP could not report a presence change');
        });
    });
  }

  async presences(): Promise<ChatPresences[]> {
    this.connection.workingClient();
    return [...this.heard.values()];
  }

  /** What was heard of the chat; subscribes first when it is not subscribed to yet. */
  async presence({ chatId }: CommandArgs<'presence.get'>): Promise<ChatPresences> {
    if (!this.heard.has(chatId)) await this.subscribePresence({ chatId });
    return this.heard.get(chatId) ?? { id: chatId, presences: [] };
  }

  async subscribePresence({ chatId }: CommandArgs<'presence.subscribe'>): Promise<void> {
    const client = this.connection.workingClient();
    const subscribed = await client.page
      .evaluate((id) => (globalThis as unknown as WppPresencePage).WPP.contact.subscribePresence(id).then((wids) => wids.length), chatId)
      .catch((error: unknown) => {
        throw new CommandError('ENGINE_ERROR', `WhatsApp Web could not subscribe to the presence of ${chatId}: ${describeWppError(error)}`);
      });
    // wa-js swallows the refusal of each id it could not subscribe to: none subscribed is that.
    if (subscribed === 0) throw new CommandError('ENGINE_ERROR', `WhatsApp Web could not subscribe to the presence of ${chatId}`, { chatId });
    if (!this.heard.has(chatId)) this.heard.set(chatId, { id: chatId, presences: [] });
  }

  private async report(client: WppPresenceClient, event: WppPresenceEvent): Promise<void> {
    if (!this.connection.isCurrent(client)) return;
    const chatId = wid(event.id);
    const entries: PresenceData[] = [];
    for (const member of event.isGroup ? (event.participants ?? []) : [{ id: event.id, state: event.state }]) {
      const presence = member.state ? PRESENCE[member.state] : undefined;
      if (!presence) continue;
      const lastSeen = presence === 'offline' && !event.isGroup ? await lastSeenOf(client, chatId) : null;
      entries.push({ participant: wid(member.id), lastKnownPresence: presence, lastSeen });
    }
    if (entries.length === 0 || !this.connection.isCurrent(client)) return;
    const update: ChatPresences = { id: chatId, presences: entries };
    const changed = new Set(entries.map((entry) => entry.participant));
    const known = this.heard.get(chatId)?.presences.filter((entry) => !changed.has(entry.participant)) ?? [];
    this.heard.set(chatId, { id: chatId, presences: [...known, ...entries] });
    this.connection.context.emit('presence.update', update);
  }
}

/**
 * When the contact was last online (Unix seconds), as WhatsApp Web's presence model keeps it
 * (`chatstate.t`, what wa-js's `getLastSeen` reads); null when hidden or unknown. wa-js's event
 * does not carry it.
 */
async function lastSeenOf(client: WppPresenceClient, chatId: string): Promise<number | null> {
  const seen = await client.page
    .evaluate((id) => (globalThis as unknown as WppPresencePage).WPP.whatsapp.PresenceStore.get(id)?.chatstate?.t ?? null, chatId)
    .catch(() => null);
  return typeof seen === 'number' && seen > 0 ? seen : null;
}

/** What the presence operations use of wa-js in the page (`window.WPP`). */
interface WppPresencePage {
  WPP: {
    contact: { subscribePresence(id: string): Promise<unknown[]> };
    whatsapp: { PresenceStore: { get(id: string): { chatstate?: { t?: number } } | undefined } };
  };
}
