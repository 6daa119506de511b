import { EventEmitter } from 'node:events';
import type {
  WebjsChat,
  WebjsClientEvents,
  WebjsClientInfo,
  WebjsClientLike,
  WebjsEventName,
  WebjsMessage,
  WebjsSendOptions,
} from '../../src/engines/webjs/webjs-client.js';
import { clientInfo, groupChat, message } from './library-shapes.js';

/**
 * A whatsapp-web.js client with no browser: the test plays the library's side by emitting its
 * events with library-built structures. A send behaves as the library's does: the browser
 * reports the new message and its first ack before `sendMessage` resolves, the device ack
 * after.
 */
export class ScriptedClient extends EventEmitter implements WebjsClientLike {
  info: WebjsClientInfo | undefined;
  readonly calls: string[] = [];
  /** What `initialize` rejects with, as when the browser cannot launch. */
  initializeError: Error | null = null;
  /** What a send resolves with; by default a new own message in that chat. */
  sendResult: ((chatId: string, text: string) => WebjsMessage | null) | null = null;
  readonly sendOptions: WebjsSendOptions[] = [];
  /** The browser page (screenshots); none until a test gives one. */
  pupPage: WebjsClientLike['pupPage'] = null;
  private sent = 0;

  async initialize(): Promise<void> {
    this.calls.push('initialize');
    if (this.initializeError) throw this.initializeError;
  }

  async destroy(): Promise<void> {
    this.calls.push('destroy');
  }

  async logout(): Promise<void> {
    this.calls.push('logout');
  }

  async sendMessage(chatId: string, text: string, options: WebjsSendOptions = {}): Promise<WebjsMessage | null> {
    this.calls.push(`sendMessage ${chatId}`);
    this.sendOptions.push(options);
    if (this.sendResult) return this.sendResult(chatId, text);
    const sent = message(this, { fromMe: true, chatId, id: `3EB0API${++this.sent}`, body: text, ack: 0 });
    this.fire('message_create', sent);
    this.fire('message_ack', sent, 1);
    setTimeout(() => this.fire('message_ack', sent, 2), 1);
    return sent;
  }

  async requestPairingCode(phoneNumber: string): Promise<string> {
    this.calls.push(`requestPairingCode ${phoneNumber}`);
    return 'K7QW2M9X';
  }

  async getChatById(chatId: string): Promise<WebjsChat> {
    return groupChat(this, chatId);
  }

  /** Emits one library event, typed as the library emits it. */
  fire<E extends WebjsEventName>(event: E, ...args: WebjsClientEvents[E]): void {
    this.emit(event, ...args);
  }

  /** The phone scanned the QR code: the library's `authenticated`, then `ready` with `info` set. */
  pair(): void {
    this.fire('authenticated');
    this.info = clientInfo(this);
    this.fire('ready');
  }
}
