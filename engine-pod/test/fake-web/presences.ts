/** What the servers send of another account's presence: online, offline, or a chat state. */
export type FakeWebPresenceKind = 'available' | 'unavailable' | 'composing' | 'recording' | 'paused';

const chatOf = (id: string): string => (id.includes('@') ? id : `${id}@c.us`);

/**
 * Other accounts' presence as the servers keep it and push it to a signed-in page: a contact
 * comes online or goes offline (with when it was last seen), types, records audio or pauses, in
 * a direct chat or, as a member, in a group. The page subscribes to a chat's presence and is
 * answered its contact's presence then, as WhatsApp's servers do.
 */
export class FakeWebPresences {
  /** The chats whose presence the page subscribed to, in order (once per ask). */
  readonly subscriptions: string[] = [];
  /** Numbers WhatsApp refuses a subscription for (`<number>@c.us`). */
  readonly refused = new Set<string>();
  private readonly online = new Map<string, { kind: 'available' | 'unavailable'; lastSeen?: number | null }>();

  constructor(private readonly push: (message: Record<string, unknown>) => void) {}

  /**
   * `from` (a contact, or a group with the member `options.participant`) shows `kind`. `lastSeen`
   * (Unix seconds) goes with `unavailable`; null is a contact hiding it.
   */
  presence(from: string, kind: FakeWebPresenceKind, options: { readonly participant?: string; readonly lastSeen?: number | null } = {}): void {
    const id = chatOf(from);
    if (kind === 'available' || kind === 'unavailable')
      this.online.set(id, { kind, ...('lastSeen' in options ? { lastSeen: options.lastSeen } : {}) });
    this.push({
      type: 'presence',
      id,
      kind,
      ...(options.participant ? { participant: chatOf(options.participant) } : {}),
      ...('lastSeen' in options ? { lastSeen: options.lastSeen } : {}),
    });
  }

  /** A page's request about presence; answers what the page is told back. */
  fromPage(message: { type: string; [key: string]: unknown }): unknown {
    if (message.type !== 'presence-subscribe') throw new Error(`the fake has no presence request ${message.type}`);
    const id = String(message.id);
    if (this.refused.has(id)) throw new Error(`not-authorized: no presence of ${id}`);
    this.subscriptions.push(id);
    return this.online.get(id) ?? null;
  }
}
