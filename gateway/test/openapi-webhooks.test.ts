import { EVENT_NAMES, EVENT_PAYLOADS, webhookSchemaId } from '@switchboard/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startGateway, type TestGateway } from './support/gateway.js';

type Json = Record<string, any>;

let gw: TestGateway;
let doc: Json;

beforeAll(async () => {
  gw = await startGateway();
  const res = await fetch(`${gw.url}/docs/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as Json;
});
afterAll(async () => {
  await gw.close();
});

/** The component a local `$ref` names, or undefined. */
function resolve(ref: string): Json | undefined {
  const prefix = '#/components/schemas/';
  return ref.startsWith(prefix) ? doc.components.schemas[ref.slice(prefix.length)] : undefined;
}

/** Every `$ref` in a value, however deep. */
function refsIn(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') found.add(child);
      else refsIn(child, found);
    }
  }
  return found;
}

const bodyRef = (name: string): string => doc.webhooks[name].post.requestBody.content['application/json'].schema.$ref;

describe('OpenAPI 3.1 webhooks: every event of spec 6.2 with its envelope and payload', () => {
  it('is an OpenAPI 3.1 document with one webhook per event name and no other', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_NAMES].sort());
  });

  it("each webhook's body is its event's envelope (2.4): event is that name, payload is that event's schema", () => {
    for (const name of EVENT_NAMES) {
      expect(bodyRef(name)).toBe(`#/components/schemas/${webhookSchemaId(name)}`);
      const envelope = resolve(bodyRef(name));
      expect(envelope, name).toBeDefined();
      expect(envelope!.properties.event.const, name).toBe(name);
      expect(envelope!.required, name).toEqual(
        expect.arrayContaining(['id', 'timestamp', 'event', 'session', 'metadata', 'payload', 'environment', 'engine']),
      );
      expect(envelope!.required, name).not.toContain('me');
      const payloadId = z.globalRegistry.get(EVENT_PAYLOADS[name])?.id;
      expect(payloadId, `${name} payload has a component name`).toBeDefined();
      expect(envelope!.properties.payload.$ref, name).toBe(`#/components/schemas/${payloadId}`);
    }
  });

  it('every reference from the webhooks, and from the components they use, resolves', () => {
    const seen = new Set<string>();
    const pending = [...refsIn(doc.webhooks)];
    while (pending.length > 0) {
      const ref = pending.pop()!;
      if (seen.has(ref)) continue;
      seen.add(ref);
      const target = resolve(ref);
      expect(target, ref).toBeDefined();
      pending.push(...refsIn(target));
    }
    expect(seen.size).toBeGreaterThan(EVENT_NAMES.length * 2);
  });

  it('marks group.join, group.leave and state.change deprecated, and names the delivery headers', () => {
    const deprecated = EVENT_NAMES.filter((name) => doc.webhooks[name].post.deprecated === true);
    expect(deprecated).toEqual(['group.join', 'group.leave', 'state.change']);
    const headers = doc.webhooks['message.any'].post.parameters.map((p: Json) => `${p.in}:${p.name}`);
    expect(headers).toEqual([
      'header:X-Webhook-Request-Id',
      'header:X-Webhook-Timestamp',
      'header:X-Webhook-Hmac',
      'header:X-Webhook-Hmac-Algorithm',
    ]);
  });
});
