import { readFileSync } from 'node:fs';
import { MessagingSessionSpec } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { messagingSessionCrd } from '../src/crd/messaging-session-crd.js';
import { crdYaml } from '../src/crd/write.js';

const committed = readFileSync(new URL('../../crds/messagingsession.yaml', import.meta.url), 'utf8');

describe('MessagingSession CRD', () => {
  it('the committed crds/messagingsession.yaml is what the protocol schemas generate', () => {
    expect(committed).toBe(crdYaml());
  });

  it('has a structural schema: no $ref, anyOf, allOf, const or propertyNames anywhere', () => {
    const text = JSON.stringify(messagingSessionCrd());
    for (const word of ['$ref', 'anyOf', 'allOf', '"const"', 'propertyNames']) expect(text).not.toContain(word);
  });

  it('carries the status subresource, printer columns for status, engine, account and age, and a short name', () => {
    const crd = parse(committed);
    const version = crd.spec.versions[0];
    expect(version.subresources).toEqual({ status: {} });
    expect(version.additionalPrinterColumns.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining(['Status', 'Engine', 'Account', 'Age']),
    );
    expect(crd.spec.names.shortNames).toEqual(['msess']);
  });

  it('spec fields and their defaults match the zod schema', () => {
    const spec = parse(committed).spec.versions[0].schema.openAPIV3Schema.properties.spec;
    expect(Object.keys(spec.properties).sort()).toEqual(Object.keys(MessagingSessionSpec.shape).sort());
    expect(spec.properties.desiredState).toMatchObject({ default: 'Running', enum: ['Running', 'Stopped'] });
    expect(spec.required).toEqual(['engine']);
    const webhook = spec.properties.config.properties.webhooks.items;
    expect(webhook.required).toEqual(['url', 'events']);
    expect(webhook.properties.retries.properties.policy.enum).toEqual(['constant', 'linear', 'exponential']);
  });

  it('takes webhook secrets as Secret keys (urlFrom / keyFrom / valueFrom.secretKeyRef), exactly one of plain and ref checked by CEL', () => {
    const webhook = parse(committed).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.config.properties.webhooks.items;
    const secretKeyRef = {
      type: 'object',
      properties: { name: expect.objectContaining({ type: 'string', maxLength: 253 }), key: expect.objectContaining({ type: 'string' }) },
      required: ['name', 'key'],
    };
    expect(webhook.properties.urlFrom).toMatchObject({ properties: { secretKeyRef }, required: ['secretKeyRef'] });
    const hmac = webhook.properties.hmac;
    expect(hmac.properties.keyFrom).toMatchObject({ properties: { secretKeyRef }, required: ['secretKeyRef'] });
    expect(hmac.required).toBeUndefined();
    expect(hmac['x-kubernetes-validations']).toEqual([{ rule: 'has(self.key) != has(self.keyFrom)', message: 'set exactly one of key and keyFrom' }]);
    const header = webhook.properties.customHeaders.items;
    expect(header.properties.valueFrom).toMatchObject({ properties: { secretKeyRef }, required: ['secretKeyRef'] });
    expect(header.required).toEqual(['name']);
    expect(header['x-kubernetes-validations']).toEqual([
      { rule: 'has(self.value) != has(self.valueFrom)', message: 'set exactly one of value and valueFrom' },
    ]);
  });

  it('the spec schema refuses a webhook secret given both ways or neither, as the CEL rules do', () => {
    const ref = { secretKeyRef: { name: 'hooks', key: 'hmac' } };
    const spec = (hook: object) => ({ engine: 'SANDBOX', config: { webhooks: [{ url: 'https://example.com/', events: ['*'], ...hook }] } });
    expect(MessagingSessionSpec.safeParse(spec({ hmac: { keyFrom: ref }, customHeaders: [{ name: 'X-Token', valueFrom: ref }] })).success).toBe(true);
    expect(MessagingSessionSpec.safeParse(spec({ hmac: { key: 'plain' }, customHeaders: [{ name: 'X-Team', value: 'a' }] })).success).toBe(true);
    for (const bad of [{ hmac: { key: 'k', keyFrom: ref } }, { hmac: {} }, { customHeaders: [{ name: 'X-Token' }] }, { customHeaders: [{ name: 'X', value: 'v', valueFrom: ref }] }]) {
      expect(MessagingSessionSpec.safeParse(spec(bad)).success, JSON.stringify(bad)).toBe(false);
    }
    expect(MessagingSessionSpec.safeParse(spec({ hmac: { keyFrom: { secretKeyRef: { name: 'Not_A_Name', key: 'k' } } } })).success).toBe(false);
  });
});
