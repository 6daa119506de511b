import type { CallPayload } from '@switchboard/protocol';
import { wholeSeconds } from '@switchboard/protocol';
import { CommandError } from '../../command-error.js';
import { wid } from '../webjs/webjs-ids.js';
import type { WppPage } from './wpp-client.js';
import type { WppConnection } from './wpp-connection.js';

/** A call offer as WPPConnect's `onIncomingCall` hands it over: WhatsApp Web's call model, serialized. */
export interface WppCall {
  readonly id: string;
  readonly peerJid: string | { readonly _serialized: string };
  readonly isVideo?: boolean;
  readonly isGroup?: boolean;
  readonly offerTime?: number;
  readonly [field: string]: unknown;
}

/** The slice of WPPConnect's client the calls use: it has no reject of its own, so wa-js's is called in the page. */
export interface WppCallsClient {
  readonly page: WppPage;
  onIncomingCall(callback: (call: WppCall) => void): unknown;
}

/**
 * Incoming calls and declining them: WPPConnect's `onIncomingCall` (WhatsApp Web's call collection)
 * is `call.received`; the calls app (spec 2.3) declines one with wa-js's `WPP.call.reject`, then
 * `call.rejected` follows with the fields of its `call.received`.
 */
export class WppCalls {
  private readonly ringing = new Map<string, CallPayload>();

  constructor(private readonly connection: WppConnection) {}

  listen(client: WppCallsClient): void {
    client.onIncomingCall((call) => this.received(call));
  }

  async rejectCall({ id }: { readonly id: string; readonly from: string }): Promise<void> {
    const client = this.connection.workingClient();
    const { session } = this.connection.context;
    const ringing = this.ringing.get(id);
    if (!ringing) throw new CommandError('NOT_FOUND', `no call ${id} is ringing on session '${session}'`, { session, callId: id });
    await client.page
      .evaluate((callId) => (globalThis as unknown as WppCallPage).WPP.call.reject(callId), id)
      .catch((error: unknown) => {
        throw new CommandError('ENGINE_ERROR', `WhatsApp Web could not reject call ${id}: ${error instanceof Error ? error.message : String(error)}`);
      });
    this.ringing.delete(id);
    this.connection.context.emit('call.rejected', { ...ringing, timestamp: Date.now() / 1000 });
  }

  private received(call: WppCall): void {
    const payload: CallPayload = {
      id: call.id,
      from: wid(call.peerJid) ?? '',
      timestamp: typeof call.offerTime === 'number' ? call.offerTime : wholeSeconds(),
      isVideo: Boolean(call.isVideo),
      isGroup: Boolean(call.isGroup),
      _data: { ...call },
    };
    this.ringing.set(call.id, payload);
    // A call rings for a minute at most: the oldest offers are forgotten first.
    if (this.ringing.size > KEPT_CALLS) this.ringing.delete(this.ringing.keys().next().value!);
    this.connection.context.emit('call.received', payload);
  }
}

const KEPT_CALLS = 64;

/** What the calls use of wa-js in the page (`window.WPP`). */
interface WppCallPage {
  WPP: { call: { reject(callId: string): Promise<boolean> } };
}
