import { createServer } from 'node:http';
import { SUBJECTS } from '@switchboard/protocol';
import { connect, type NatsConnection } from 'nats';

/**
 * Child process of `scale.ts`: where the events end up. A webhook receiver (plain node HTTP,
 * answers 200 at once) and websocket clients of the gateway replicas subscribed to every
 * session's events (`/ws?session=*&events=*`). Both count `message` events by event id (per
 * websocket client), so an event lost or delivered twice shows, and take each one's delay from its envelope `timestamp`
 * (set by the engine when it made the event) to its arrival here.
 *
 * Messages from the parent: `{ type: 'ws', urls, apiKey }` connects one client per url;
 * `{ type: 'reset' }` forgets what was received; `{ type: 'stats' }` answers the counts.
 */
interface Sink {
  /** Event id → times received. */
  readonly seen: Map<string, number>;
  latencies: number[];
  /** Per source (websocket client) its own count, to show each replica's share. */
  readonly perSource: number[];
}

const newSink = (sources = 1): Sink => ({ seen: new Map(), latencies: [], perSource: Array.from({ length: sources }, () => 0) });
let webhook = newSink();
let ws = newSink();
let sockets: WebSocket[] = [];
/** With `{ type: 'nats', url }`: the events as a plain NATS subscriber gets them, the stage before any gateway. */
let stage = newSink();
let nc: NatsConnection | null = null;

function receive(sink: Sink, text: string, source = 0): void {
  let envelope: { id?: unknown; event?: unknown; timestamp?: unknown };
  try {
    envelope = JSON.parse(text) as typeof envelope;
  } catch {
    return;
  }
  if (envelope.event !== 'message' || typeof envelope.id !== 'string') return;
  // Per source: each websocket client should get every event once.
  const key = `${source}:${envelope.id}`;
  sink.seen.set(key, (sink.seen.get(key) ?? 0) + 1);
  if (typeof envelope.timestamp === 'number') sink.latencies.push(Date.now() - envelope.timestamp);
  sink.perSource[source] = (sink.perSource[source] ?? 0) + 1;
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    receive(webhook, Buffer.concat(chunks).toString('utf8'));
    response.writeHead(200).end();
  });
});
server.keepAliveTimeout = 60_000;

function summary(sink: Sink) {
  const sorted = [...sink.latencies].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  let duplicates = 0;
  for (const times of sink.seen.values()) duplicates += times - 1;
  return {
    received: sink.latencies.length,
    unique: sink.seen.size,
    duplicates,
    p50: at(50),
    p99: at(99),
    max: sorted.at(-1) ?? 0,
    perSource: sink.perSource,
  };
}

process.on('message', (message: { type: string; urls?: string[]; apiKey?: string; url?: string }) => {
  if (message.type === 'nats') {
    void connect({ servers: message.url, name: 'bench scale observer' }).then((connection) => {
      nc = connection;
      connection.subscribe(SUBJECTS.event('*', 'message'), { callback: (_error, msg) => receive(stage, msg.string()) });
      void connection.flush().then(() => process.send!({ type: 'nats' }));
    });
  } else if (message.type === 'ws') {
    const urls = message.urls ?? [];
    for (const socket of sockets) socket.close();
    ws = newSink(urls.length);
    let open = 0;
    sockets = urls.map((url, source) => {
      const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/ws?session=*&events=*&x-api-key=${encodeURIComponent(message.apiKey ?? '')}`);
      socket.addEventListener('message', (event) => receive(ws, String(event.data), source));
      socket.addEventListener('open', () => {
        if (++open === urls.length) process.send!({ type: 'ws' });
      });
      socket.addEventListener('close', (event) => console.error(`scale observer: websocket ${source} closed (${event.code} ${event.reason})`));
      return socket;
    });
  } else if (message.type === 'reset') {
    webhook = newSink();
    ws = newSink(sockets.length);
    stage = newSink();
    process.send!({ type: 'reset' });
  } else if (message.type === 'stats') {
    process.send!({ type: 'stats', webhook: summary(webhook), ws: summary(ws), ...(nc ? { nats: summary(stage) } : {}) });
  } else if (message.type === 'stop') {
    for (const socket of sockets) socket.close();
    void nc?.close();
    server.close();
    process.exit(0);
  }
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send!({ type: 'up', port: typeof address === 'object' && address ? address.port : 0 });
});
