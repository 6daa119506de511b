import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractGateway, startGateway, workingSession } from './harness.js';

/*
 * The outbound address policy's built-in rules, in both modes (docs/operations.md, "Outbound
 * address policy"). Nothing here connects anywhere: every address used is refused before that.
 */

const METADATA_REFUSED =
  '169.254.169.254 is denied by the outbound address policy (rule 169.254.0.0/16, a built-in rule; SWITCHBOARD_OUTBOUND_ALLOW can allow it)';
const SESSION = 'outbound';
const PEER = '15557654321@c.us';

let gw: ContractGateway;
beforeAll(async () => {
  gw = await startGateway();
  await workingSession(gw, SESSION);
});
afterAll(async () => {
  await gw.close();
});

describe('webhooks cannot be aimed at the metadata endpoint, nor forge the headers the gateway sets', () => {
  it('answers 400 naming the webhook and the rule at create and at PUT, and changes nothing', async () => {
    const aimed = { url: 'http://169.254.169.254/latest/meta-data/', events: ['message'] };
    const created = await gw.api('POST', '/api/sessions', { name: 'outbound-aimed', start: false, config: { webhooks: [aimed] } });
    expect(created.status).toBe(400);
    expect(created.body.details).toEqual([{ path: 'body.config.webhooks[0].url', reason: METADATA_REFUSED }]);
    expect((await gw.api('GET', '/api/sessions/outbound-aimed')).status).toBe(404);

    const put = await gw.api('PUT', `/api/sessions/${SESSION}`, { config: { webhooks: [aimed] } });
    expect(put.status).toBe(400);
    expect(put.body.details).toEqual([{ path: 'body.config.webhooks[0].url', reason: METADATA_REFUSED }]);
    expect((await gw.api('GET', `/api/sessions/${SESSION}`)).body.config.webhooks ?? []).toEqual([]);
  });

  it('answers 400 naming a custom header the gateway sets itself', async () => {
    const res = await gw.api('POST', '/api/sessions', {
      name: 'outbound-headers',
      start: false,
      config: {
        webhooks: [{ url: 'https://hooks.example.com/x', events: ['message'], customHeaders: [{ name: 'X-Webhook-Timestamp', value: '1' }] }],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      {
        path: 'body.config.webhooks[0].customHeaders[0].name',
        reason:
          '"X-Webhook-Timestamp" is set by the gateway: customHeaders may not set Host, Content-Length, X-Webhook-*, webhook-id, webhook-timestamp or webhook-signature',
      },
    ]);
  });
});

describe('a NOWEB proxy cannot be the metadata endpoint', () => {
  it('answers 400 naming body.config.proxy.server and the rule, and creates nothing', async () => {
    const res = await gw.api('POST', '/api/sessions', {
      name: 'outbound-proxy',
      engine: 'NOWEB',
      start: false,
      config: { proxy: { server: 'http://169.254.169.254:80' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path: 'body.config.proxy.server', reason: METADATA_REFUSED }]);
    expect((await gw.api('GET', '/api/sessions/outbound-proxy')).status).toBe(404);
  });
});

describe('files sent by URL cannot be fetched from the metadata endpoint', () => {
  it('answers 400 naming body.file.url and the rule, whatever form the address takes', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data/x.pdf', 'http://2852039166/x.pdf']) {
      const res = await gw.api('POST', '/api/sendFile', { session: SESSION, chatId: PEER, file: { mimetype: 'application/pdf', url } });
      expect(res.status, url).toBe(400);
      expect(res.body.details, url).toEqual([{ path: 'body.file.url', reason: `could not be downloaded: ${METADATA_REFUSED}` }]);
    }
  });
});
