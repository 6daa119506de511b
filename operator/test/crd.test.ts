import { readFileSync } from 'node:fs';
import { MessagingSessionSpec, SessionCreateRequest, WEBHOOK_URL_MAX, WebhookConfig } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { messagingSessionCrd } from '../src/crd/messaging-session-crd.js';
import { crdYaml } from '../src/crd/write.js';

const committed = readFileSync(new URL('../../crds/messagingsession.yaml', import.meta.url), 'utf8');

/** A node of the CRD's schema, read loosely: the keywords tests look at. */
interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  [keyword: string]: unknown;
}
interface Crd {
  spec: {
    names: { shortNames: string[] };
    versions: { subresources: unknown; additionalPrinterColumns: { name: string; jsonPath: string }[]; schema: { openAPIV3Schema: Schema } }[];
  };
}
const crd = parse(committed) as Crd;
const version = crd.spec.versions[0]!;
const root = version.schema.openAPIV3Schema;

/** The schema at a path of property names from the root; `[]` steps into an array's items. */
function at(...path: string[]): Schema {
  return path.reduce<Schema>((schema, key) => {
    const next = key === '[]' ? schema.items : schema.properties?.[key];
    if (!next) throw new Error(`the CRD has no ${path.join('.')}`);
    return next;
  }, root);
}
const webhookPath = ['spec', 'config', 'webhooks', '[]'];

describe('MessagingSession CRD', () => {
  it('the committed crds/messagingsession.yaml is what the protocol schemas generate', () => {
    expect(committed).toBe(crdYaml());
  });

  it('has a structural schema: no $ref, anyOf, allOf, const or propertyNames anywhere', () => {
    const text = JSON.stringify(messagingSessionCrd());
    for (const word of ['$ref', 'anyOf', 'allOf', '"const"', 'propertyNames']) expect(text).not.toContain(word);
  });

  it('carries the status subresource, printer columns for status, Ready, engine, account and age, and a short name', () => {
    expect(version.subresources).toEqual({ status: {} });
    expect(version.additionalPrinterColumns.map((c) => c.name)).toEqual(expect.arrayContaining(['Status', 'Ready', 'Engine', 'Account', 'Age']));
    expect(version.additionalPrinterColumns.find((c) => c.name === 'Ready')?.jsonPath).toBe('.status.conditions[?(@.type=="Ready")].status');
    expect(crd.spec.names.shortNames).toEqual(['msess']);
  });

  it('status.conditions is a list keyed by type of standard metav1.Condition, and status.observedGeneration an int64', () => {
    expect(at('status', 'observedGeneration')).toMatchObject({ type: 'integer', format: 'int64', minimum: 0 });
    const conditions = at('status', 'conditions');
    expect(conditions).toMatchObject({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] });
    // apimachinery's metav1.Condition, as controller-gen writes it.
    expect(conditions.items).toEqual({
      type: 'object',
      properties: {
        type: {
          type: 'string',
          maxLength: 316,
          pattern: String.raw`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`,
        },
        status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
        observedGeneration: expect.objectContaining({ type: 'integer', format: 'int64', minimum: 0 }) as Schema,
        lastTransitionTime: expect.objectContaining({ type: 'string', format: 'date-time' }) as Schema,
        reason: { type: 'string', minLength: 1, maxLength: 1024, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' },
        message: { type: 'string', maxLength: 32768 },
      },
      required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
    });
    expect(at('status', 'conditions', '[]', 'lastTransitionTime').pattern).toBeUndefined();
  });

  it('bounds names and urls: spec.session is a session name, metadata.name is checked at creation, a webhook url has a maximum', () => {
    expect(at('spec', 'session')).toMatchObject({ maxLength: 63, pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$' });
    expect(root['x-kubernetes-validations']).toEqual([
      expect.objectContaining({ optionalOldSelf: true, rule: expect.stringMatching(/^oldSelf\.hasValue\(\) \|\| /) as string }) as Schema,
      expect.objectContaining({
        optionalOldSelf: true,
        fieldPath: '.spec.session',
        message: expect.stringMatching(/^spec\.session must/) as string,
      }) as Schema,
      expect.objectContaining({ optionalOldSelf: true, fieldPath: '.spec.session', message: 'spec.session cannot be changed' }) as Schema,
    ]);
    expect(at(...webhookPath, 'url')).toMatchObject({ format: 'uri', maxLength: 8192 });
    expect(at('status', 'podName').maxLength).toBe(253);
  });

  it('the API refuses what the CRD refuses: the same bounds come from the same zod schemas', () => {
    expect(at(...webhookPath, 'url').maxLength).toBe(WEBHOOK_URL_MAX);
    const url = (length: number) => `https://example.com/${'a'.repeat(length - 'https://example.com/'.length)}`;
    expect(WebhookConfig.safeParse({ url: url(WEBHOOK_URL_MAX), events: ['*'] }).success).toBe(true);
    expect(WebhookConfig.safeParse({ url: url(WEBHOOK_URL_MAX + 1), events: ['*'] }).success).toBe(false);
    expect(at(...webhookPath, 'customHeaders', '[]', 'name').maxLength).toBe(256);
    const sessionMax = at('spec', 'session').maxLength as number;
    expect(SessionCreateRequest.safeParse({ name: 'a'.repeat(sessionMax) }).success).toBe(true);
    expect(SessionCreateRequest.safeParse({ name: 'a'.repeat(sessionMax + 1) }).success).toBe(false);
  });

  it('spec fields and their defaults match the zod schema', () => {
    expect(Object.keys(at('spec').properties ?? {}).sort()).toEqual(Object.keys(MessagingSessionSpec.shape).sort());
    expect(at('spec', 'desiredState')).toMatchObject({ default: 'Running', enum: ['Running', 'Stopped'] });
    expect(at('spec').required).toEqual(['engine']);
    expect(at(...webhookPath).required).toEqual(['url', 'events']);
    expect(at(...webhookPath, 'retries', 'policy').enum).toEqual(['constant', 'linear', 'exponential']);
  });

  it('takes webhook secrets as Secret keys (urlFrom / keyFrom / valueFrom.secretKeyRef), exactly one of plain and ref checked by CEL', () => {
    const secretKeyRef = {
      type: 'object',
      properties: {
        name: expect.objectContaining({ type: 'string', maxLength: 253 }) as Schema,
        key: expect.objectContaining({ type: 'string' }) as Schema,
      },
      required: ['name', 'key'],
    };
    expect(at(...webhookPath, 'urlFrom')).toMatchObject({ properties: { secretKeyRef }, required: ['secretKeyRef'] });
    const hmac = at(...webhookPath, 'hmac');
    expect(at(...webhookPath, 'hmac', 'keyFrom')).toMatchObject({ properties: { secretKeyRef }, required: ['secretKeyRef'] });
    expect(hmac.required).toBeUndefined();
    expect(hmac['x-kubernetes-validations']).toEqual([{ rule: 'has(self.key) != has(self.keyFrom)', message: 'set exactly one of key and keyFrom' }]);
    const header = at(...webhookPath, 'customHeaders', '[]');
    expect(at(...webhookPath, 'customHeaders', '[]', 'valueFrom')).toMatchObject({ properties: { secretKeyRef }, required: ['secretKeyRef'] });
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
    for (const bad of [
      { hmac: { key: 'k', keyFrom: ref } },
      { hmac: {} },
      { customHeaders: [{ name: 'X-Token' }] },
      { customHeaders: [{ name: 'X', value: 'v', valueFrom: ref }] },
    ]) {
      expect(MessagingSessionSpec.safeParse(spec(bad)).success, JSON.stringify(bad)).toBe(false);
    }
    expect(MessagingSessionSpec.safeParse(spec({ hmac: { keyFrom: { secretKeyRef: { name: 'Not_A_Name', key: 'k' } } } })).success).toBe(false);
  });
});
