import type { WASocket } from './noweb-connection.js';

/**
 * Notices an open connection gone silent (issue 31 §3): the server keeps the socket open and
 * answers nothing. Baileys pings every `keepAliveIntervalMs` (the engine sets a third of the
 * timeout, so a live connection answers several times within it) but ends the socket only when
 * nothing came for that interval plus a fixed 5 s, checked at its pings: never within 5 s, and up
 * to twice its interval. The timeout is the bound: checked every quarter of it, this watch calls
 * `onSilent` once nothing at all came for three quarters of it, so always within it.
 */
export class SilenceWatch {
  private lastReceived = Date.now();
  private readonly timer: NodeJS.Timeout;
  private readonly received = () => {
    this.lastReceived = Date.now();
  };

  constructor(
    private readonly socket: WASocket,
    private readonly timeoutMs: number,
    onSilent: (silentForMs: number) => void,
  ) {
    // Every decoded frame, answers to our pings included, passes through the websocket's 'frame' event.
    socket.ws.on('frame', this.received);
    this.timer = setInterval(
      () => {
        const silentForMs = Date.now() - this.lastReceived;
        if (silentForMs < (this.timeoutMs * 3) / 4) return;
        this.stop();
        onSilent(silentForMs);
      },
      Math.max(1, Math.floor(timeoutMs / 4)),
    );
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.socket.ws.off('frame', this.received);
  }
}

/** Baileys' keep-alive ping interval for a silence timeout: three pings fit in it. */
export function keepAliveIntervalFor(timeoutMs: number): number {
  return Math.floor(timeoutMs / 3);
}
