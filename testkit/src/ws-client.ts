import WebSocket from 'ws';
import type { WireJson } from './api-client.js';

/** A real websocket client on /ws that records every frame and how it closed. */
export class WsClient {
  readonly frames: WireJson[] = [];
  closed: { code: number; reason: string } | null = null;
  private constructor(readonly socket: WebSocket) {
    // Text frames arrive as one Buffer (the socket's default binaryType).
    socket.on('message', (data) => this.frames.push(JSON.parse((data as Buffer).toString('utf8'))));
    socket.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
    });
  }

  static connect(baseUrl: string, query: string): Promise<WsClient> {
    const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws?${query}`);
    const client = new WsClient(socket);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(client));
      socket.once('error', reject);
    });
  }

  events(name: string): WireJson[] {
    return this.frames.filter((frame) => (frame as { event?: unknown }).event === name);
  }

  close(): void {
    this.socket.close();
  }
}
