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
});
