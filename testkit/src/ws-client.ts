import WebSocket from 'ws';

/** A real websocket client on /ws that records every frame and how it closed. */
export class WsClient {
  readonly frames: any[] = [];
  closed: { code: number; reason: string } | null = null;
  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => this.frames.push(JSON.parse(data.toString())));
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

  events(name: string): any[] {
    return this.frames.filter((frame) => frame.event === name);
  }

  close(): void {
    this.socket.close();
  }
}
