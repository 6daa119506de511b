// A /ws client that counts what it is sent, through the same port-forward as the API calls, and
// connects again whenever its socket closes (a gateway replica or the forward went away). /ws is
// not durable: what passes while it reconnects is not sent again, so its counts are informative.
import type { Release } from '../release.js';
import { Seen } from './deliveries.js';

export class WsCounter {
  readonly seen = new Seen();
  reconnects = 0;
  private socket: WebSocket | null = null;
  private stopped = false;

  constructor(private readonly release: Release) {}

  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    while (!this.stopped) {
      try {
        const url = (await this.release.gatewayUrl()).replace(/^http/, 'ws');
        const key = encodeURIComponent(await this.release.apiKey());
        const socket = new WebSocket(`${url}/ws?x-api-key=${key}&session=*&events=message.any&events=session.status`);
        await new Promise<void>((done, fail) => {
          socket.addEventListener('open', () => done(), { once: true });
          socket.addEventListener('error', () => fail(new Error('/ws did not open')), { once: true });
        });
        socket.addEventListener('message', (event) => this.seen.record(JSON.parse(String(event.data))));
        socket.addEventListener('close', () => {
          if (this.stopped) return;
          this.reconnects++;
          setTimeout(() => void this.connect(), 1_000);
        });
        this.socket = socket;
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  }

  stop(): void {
    this.stopped = true;
    this.socket?.close();
  }
}
