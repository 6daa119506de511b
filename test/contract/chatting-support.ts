import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { EventTap } from './event-tap.js';
import { ADMIN_KEY, type ContractGateway, startGateway } from './harness.js';

// Real files, small enough to send inline: a 1x1 PNG, and a few bytes of "audio" and "video".
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

export const PEER = '15551234567@c.us';
export const GROUP = '120363000000000001@g.us';

/** A gateway with a WORKING SANDBOX session and an EventTap on it, for one file's tests. */
export function chattingSession(session: string): { readonly gw: ContractGateway; readonly tap: EventTap } {
  const context = {} as { gw: ContractGateway; tap: EventTap };
  beforeAll(async () => {
    context.gw = await startGateway();
    context.tap = await EventTap.open(context.gw, session);
  });
  afterAll(async () => {
    await context.tap?.close();
    await context.gw?.close();
  });
  return context;
}

/** A web server the engine downloads files from, as it would from any URL a client gives. */
export class FileServer {
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FileServer> {
    const server = createServer((request, response) => {
      if (request.url === '/docs/report.pdf') response.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF);
      else if (request.url === '/pixel') response.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new FileServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Spec 6.2, ties 2: a send gives `message.any` with source `api` (the record the send answered),
 * then `message.ack` SERVER and DEVICE, in that order, at the webhook and on /ws alike.
 */
export async function expectSendEvents(tap: EventTap, record: { id: string; to: string; from: string }): Promise<any> {
  const any = await tap.delivered('message.any', (payload) => payload.id === record.id);
  expect(any.payload).toEqual(record);
  expect(any.payload.source).toBe('api');
  const server = await tap.delivered('message.ack', (payload) => payload.id === record.id && payload.ack === 1);
  const device = await tap.delivered('message.ack', (payload) => payload.id === record.id && payload.ack === 2);
  expect(server.payload).toMatchObject({ from: record.to, fromMe: true, ackName: 'SERVER' });
  expect(device.payload.ackName).toBe('DEVICE');
  const order = tap.ws.frames.filter((frame) => frame.payload.id === record.id).map((frame) => `${frame.event}:${frame.payload.ack}`);
  expect(order).toEqual(['message.any:0', 'message.ack:1', 'message.ack:2']);
  return any.payload;
}

/**
 * When the gateway keeps media (it may not: spec 2.5 allows null), `media.url` downloads the
 * bytes sent. Fetched from this gateway by the URL's path: the base address is configuration.
 */
export async function expectStoredMedia(
  gatewayUrl: string,
  media: { url: string; mimetype?: string } | null,
  mimetype: string,
  bytes: Buffer,
): Promise<void> {
  if (media === null) return;
  expect(media.mimetype).toBe(mimetype);
  const res = await fetch(gatewayUrl + new URL(media.url).pathname, { headers: { 'x-api-key': ADMIN_KEY } });
  expect(res.status).toBe(200);
  const received = Buffer.from(await res.arrayBuffer());
  expect(received.length).toBe(bytes.length);
  // Byte for byte; toEqual walks a buffer element by element, seconds for a file of a few MB.
  expect(received.equals(bytes), 'the stored bytes differ from the sent ones').toBe(true);
}

/** The fields a 400 names, in order. */
export const fieldsOf = (body: { details?: { path: string }[] }) => (body.details ?? []).map((detail) => detail.path);
