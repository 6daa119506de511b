import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILT_ENGINES, SessionStatus } from '@switchboard/protocol';
import { waitFor, WebhookReceiver } from '@switchboard/testkit';
import type jsQRModule from 'jsqr';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startGateway, type TestGateway, workingSession } from '../../gateway/test/support/gateway.js';

/**
 * The dashboard in a real browser: Debian's chromium, headless, driven by puppeteer-core (no
 * browser download), against a real local gateway serving the built dashboard (`make build`).
 * One story, step by step as a person would go, each step screenshotted into
 * test-results/dashboard/ (docs/dashboard.md shows copies of them).
 */
/** The few browser globals the page functions below use: this program has no DOM types. */
declare const document: {
  activeElement: { id: string } | null;
  querySelector(selector: string): { textContent: string | null; src?: string } | null;
  cookie: string;
  documentElement: { scrollWidth: number };
};
declare const window: { innerWidth: number; marker?: string };
declare const sessionStorage: { getItem(key: string): string | null };

// jsqr is CommonJS whose module.exports is the function.
const jsQR = createRequire(import.meta.url)('jsqr') as typeof jsQRModule.default;

const CHROMIUM = process.env.SWITCHBOARD_CHROMIUM_PATH || '/usr/bin/chromium';
const SHOTS = fileURLToPath(new URL('../../test-results/dashboard/', import.meta.url));
const DIST = fileURLToPath(new URL('../../dashboard/dist/index.html', import.meta.url));
const PEER = '15557654321@c.us';
const STEP_MS = 15_000;

let gw: TestGateway;
let browser: Browser;
let page: Page;
let hook: WebhookReceiver;
let failing = true;
/** Requests the page made to anything but the gateway, and CSP violations it reported. */
const foreign: string[] = [];
const violations: string[] = [];
let readOnlyKey = '';

async function shot(target: Page, name: string): Promise<void> {
  await target.screenshot({ path: `${join(SHOTS, `dashboard-${name}`)}.png` });
}

async function watch(target: Page, origin: string): Promise<void> {
  target.on('request', (request) => {
    if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) foreign.push(request.url());
  });
  target.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  target.on('dialog', (dialog) => void dialog.accept());
}

async function text(target: Page, selector: string): Promise<string> {
  return target.$eval(selector, (element) => element.textContent ?? '');
}

/** The QR the page shows, read back from its pixels (a canvas in the page) and decoded. */
async function shownQr(target: Page): Promise<string | null> {
  const { width, height, rgba } = await target.$eval('#qr', (element) => {
    const img = element as unknown as { naturalWidth: number; naturalHeight: number };
    const canvas = (
      document as unknown as { createElement(tag: 'canvas'): { width: number; height: number; getContext(kind: '2d'): any } }
    ).createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const context = canvas.getContext('2d');
    context.drawImage(img, 0, 0);
    return { width: canvas.width, height: canvas.height, rgba: Array.from(context.getImageData(0, 0, canvas.width, canvas.height).data as number[]) };
  });
  return jsQR(Uint8ClampedArray.from(rgba), width, height)?.data ?? null;
}

async function login(target: Page, key: string): Promise<void> {
  await target.goto(`${gw.url}/dashboard`);
  // Keyboard only: the key field has the focus, Enter submits.
  await target.waitForSelector('#api-key');
  await target.keyboard.type(key);
  await target.keyboard.press('Enter');
  await target.waitForSelector('#who');
}

async function openTab(target: Page, tab: string): Promise<void> {
  await target.click(`#tab-${tab}`);
  await target.waitForSelector(`#tab-${tab}[aria-current="page"]`);
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (scripts/ensure-chromium.sh)`);
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run make build (it builds the dashboard)`);
  mkdirSync(SHOTS, { recursive: true });
  hook = await new WebhookReceiver().start();
  hook.respond = () => (failing ? 503 : 200);
  gw = await startGateway({ qrRenewMs: 1500 });
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
    ],
    defaultViewport: { width: 960, height: 680 },
  });
  page = await browser.newPage();
  await watch(page, gw.url);
});

afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await hook?.stop();
});

// Each browser step has its own limit (STEP_MS); a test is a journey of up to ten of them, so the
// suite's 20 s per test would cut a journey short on a loaded machine (it did once, in a full run
// at a load average of 12) while every step was still within its own limit.
describe('the dashboard in Debian chromium', { timeout: 120_000 }, () => {
  it('enter the admin key (keyboard only): the session table, live from /ws', async () => {
    await login(page, ADMIN_KEY);
    expect(await text(page, '#who')).toContain('admin key');
    await page.waitForFunction(() => document.querySelector('#live')?.textContent === 'live', { timeout: STEP_MS });
    // The key is in sessionStorage, and in no URL or cookie.
    expect(await page.evaluate(() => sessionStorage.getItem('switchboard.apiKey'))).toBe(ADMIN_KEY);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(page.url()).not.toContain(ADMIN_KEY);
    // Its engines and statuses are the protocol's, every one of them (GOWS was once left out).
    const options = (selector: string) => page.$$eval(`${selector} option`, (all) => all.map((option) => option.textContent ?? ''));
    expect(await options('#new-session-engine')).toEqual([...BUILT_ENGINES]);
    expect(await options('#status-filter')).toEqual(['any', ...SessionStatus.options]);
    await shot(page, '1-sessions');
  });

  it('create a SANDBOX session and see its QR, replaced as it rotates', async () => {
    await page.type('#new-session-name', 'demo');
    await page.select('#new-session-engine', 'SANDBOX');
    await page.click('#create-session button[type="submit"]');
    await page.waitForSelector('tr[data-session="demo"] [data-status="SCAN_QR_CODE"]', { timeout: STEP_MS });
    // A webhook for the session, which refuses at first: its deliveries die (dead letters below).
    const webhooks = [{ url: hook.url, events: ['message'], retries: { policy: 'constant', delaySeconds: 0.05, attempts: 1 } }];
    expect((await gw.api('PUT', '/api/sessions/demo', { config: { webhooks } })).status).toBe(200);
    await page.click('tr[data-session="demo"] button:first-of-type'); // Pair
    await page.waitForSelector('#qr', { timeout: STEP_MS });
    const first = await page.$eval('#qr', (img) => (img as unknown as { src: string }).src);
    expect(first).toMatch(/^data:image\/png;base64,/);
    // A renewal (session.status SCAN_QR_CODE on /ws) brings a new image without a reload.
    await page.waitForFunction((before) => document.querySelector('#qr')?.src !== before, { timeout: STEP_MS }, first);
    expect(await text(page, '#qr-countdown')).toMatch(/Renews in about \d+ s/);
    // What the page shows is the session's current code (a renewal in between shows as a new image).
    await waitFor(
      async () => {
        const shown = await shownQr(page);
        return shown !== null && shown === (await gw.api('GET', '/api/demo/auth/qr?format=raw')).body.value;
      },
      'the QR on the page to decode to the current value',
      STEP_MS,
    );
    await shot(page, '2-qr');
  });

  it('the scan, simulated through the API, shows WORKING without a reload', async () => {
    await page.evaluate(() => (window.marker = 'same page'));
    const scanned = await gw.api('POST', '/api/demo/sandbox/simulate', { kind: 'scan' });
    expect(scanned.status).toBe(201);
    await page.waitForSelector('#working', { timeout: STEP_MS });
    expect(await text(page, '#working')).toContain('WORKING');
    expect(await page.evaluate(() => window.marker)).toBe('same page');
    await shot(page, '3-working');
  });

  it('send a test message and see its events in the monitor, with the payload', async () => {
    await openTab(page, 'send');
    await page.select('#send-session', 'demo');
    await page.type('#send-chat', PEER);
    await page.click('#send');
    await page.waitForFunction(() => document.querySelector('#send-result')?.textContent?.startsWith('sent'), { timeout: STEP_MS });
    // And one from the peer, for the webhook (it takes `message`) to refuse.
    expect((await gw.api('POST', '/api/demo/sandbox/simulate', { kind: 'message', from: PEER, body: 'hi dashboard' })).status).toBe(201);

    await openTab(page, 'events');
    await page.type('#event-filter', 'message');
    await page.waitForSelector('#events button[data-event="message"]', { timeout: STEP_MS });
    const kinds = await page.$$eval('#events button', (buttons) => buttons.map((b) => b.getAttribute('data-event')));
    expect(kinds.every((kind) => kind?.startsWith('message'))).toBe(true);
    expect(kinds).toContain('message.any');
    await page.click('#events button[data-event="message"]');
    expect(await text(page, '#payload')).toContain('hi dashboard');
    await page.click('#pause');
    expect(await page.$eval('#pause', (b) => b.getAttribute('aria-pressed'))).toBe('true');
    await shot(page, '4-events');
    await page.click('#pause');
  });

  it('replay a dead letter of the webhook', async () => {
    await waitFor(async () => (await gw.api('GET', '/api/demo/webhooks/dead')).body.length === 1, 'a dead delivery', STEP_MS);
    await openTab(page, 'dead');
    await page.select('#dead-session', 'demo');
    await page.waitForSelector('tr[data-dead]', { timeout: STEP_MS });
    expect(await text(page, '.webhook h3')).toContain(hook.url);
    await shot(page, '5-dead-letters');
    failing = false;
    await page.click('.replay-all');
    await page.waitForFunction(() => document.querySelector('#dead-message')?.textContent?.startsWith('replayed 1'), { timeout: STEP_MS });
    await waitFor(
      () => hook.received.some((h) => h.body.event === 'message' && h.body.payload.body === 'hi dashboard'),
      'the replayed delivery',
      STEP_MS,
    );
    await page.waitForSelector('tr[data-dead]', { hidden: true, timeout: STEP_MS });
  });

  it("cancel a send waiting in a paced session's send queue", async () => {
    // perMinute 1: the first text goes, the second waits a minute, well past the 0 ms asked for.
    await workingSession(gw, 'paced', { config: { sending: { perMinute: 1 } } });
    const statuses = [];
    for (const text of ['first', 'second']) {
      const answer = await fetch(`${gw.url}/api/sendText`, {
        method: 'POST',
        headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', 'x-switchboard-wait': text === 'first' ? '5000' : '0' },
        body: JSON.stringify({ session: 'paced', chatId: '15550003333@c.us', text, id: text === 'first' ? 'DASHFIRST001' : 'DASHQUEUED01' }),
      });
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([201, 202]);
    // The session list is read when the page loads (and on status events): load it again.
    await page.reload();
    await page.waitForSelector('#who', { timeout: STEP_MS });
    await openTab(page, 'queue');
    await page.waitForSelector('#queue-session', { timeout: STEP_MS });
    await page.select('#queue-session', 'paced');
    await page.waitForSelector('tr[data-queued="DASHQUEUED01"]', { timeout: STEP_MS });
    expect(await text(page, '#queue-total')).toBe('1 waiting');
    await shot(page, '5b-send-queue');
    await page.click('tr[data-queued="DASHQUEUED01"] button');
    await page.waitForFunction(() => document.querySelector('#queue-message')?.textContent === 'cancelled DASHQUEUED01', { timeout: STEP_MS });
    await page.waitForSelector('tr[data-queued]', { hidden: true, timeout: STEP_MS });
    expect((await gw.api('GET', '/api/paced/queue')).body).toEqual({ total: 0, items: [] });
  });

  it('create a read-only key: shown once', async () => {
    await openTab(page, 'keys');
    await page.click('.key-limited'); // only these actions: read (checked by default)
    await page.click('.scope button[type="submit"]');
    await page.waitForSelector('#new-key', { timeout: STEP_MS });
    readOnlyKey = await page.$eval('#new-key', (input) => (input as unknown as { value: string }).value);
    expect(readOnlyKey).toMatch(/^sb_/);
    const listed = (await gw.api('GET', '/api/keys')).body;
    expect(listed).toEqual([expect.objectContaining({ kind: 'general', session: null, actions: { read: true } })]);
    await shot(page, '6-keys');
  });

  it("the read-only key's view: everything read-only, on a phone-sized screen", async () => {
    const context = await browser.createBrowserContext();
    const phone = await context.newPage();
    await watch(phone, gw.url);
    await phone.setViewport({ width: 390, height: 760, deviceScaleFactor: 1 });
    await login(phone, readOnlyKey);
    expect(await text(phone, '#who')).toContain('read-only');
    await phone.waitForSelector('tr[data-session="demo"] [data-status="WORKING"]', { timeout: STEP_MS });
    const tabs = await phone.$$eval('nav button', (buttons) => buttons.map((b) => b.id));
    expect(tabs).toEqual(['tab-sessions', 'tab-events', 'tab-dead']);
    expect(await phone.$('#create-session')).toBeNull();
    expect(await phone.$$('#sessions button')).toHaveLength(0);
    // Nothing wider than the screen but the table's own scroller.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot(phone, '7-read-only-phone');
    // Keyboard only: Tab reaches the sections, Enter opens one.
    for (let i = 0; i < 10 && (await phone.evaluate(() => document.activeElement?.id)) !== 'tab-events'; i++) await phone.keyboard.press('Tab');
    await phone.keyboard.press('Enter');
    await phone.waitForSelector('#tab-events[aria-current="page"]');
    await openTab(phone, 'dead');
    expect(await phone.$('.replay-all')).toBeNull();
    await context.close();
  });

  it("a control key's view: only pairing, by QR, phone code, and a passkey with its confirmation code", async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'pk', engine: 'SANDBOX' })).status).toBe(201);
    await waitFor(async () => (await gw.api('GET', '/api/sessions/pk')).body.status === 'SCAN_QR_CODE', 'SCAN_QR_CODE', STEP_MS);
    const control = (await gw.api('POST', '/api/keys/control', { session: 'pk' })).body.key as string;
    const context = await browser.createBrowserContext();
    const tab = await context.newPage();
    await watch(tab, gw.url);
    await login(tab, control);
    expect(await text(tab, '#who')).toContain('control key for pk');
    // A control key cannot open /ws: the page polls the session instead.
    expect(await text(tab, '#live')).toBe('polling');
    expect(await tab.$$eval('nav button', (buttons) => buttons.map((b) => b.id))).toEqual(['tab-sessions', 'tab-pairing']);
    expect(await tab.$('#sessions .danger')).toBeNull();

    await openTab(tab, 'pairing');
    await tab.waitForSelector('#qr', { timeout: STEP_MS });
    await tab.type('#phone', '+15551234567');
    await tab.click('#request-code');
    await tab.waitForSelector('#phone-code', { timeout: STEP_MS });
    expect(await text(tab, '#phone-code')).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);

    // The phone asks for a passkey: the page shows the challenge and takes the assertion.
    expect((await gw.api('POST', '/api/pk/sandbox/simulate', { kind: 'passkey', confirmation: true })).status).toBe(201);
    await tab.waitForSelector('#passkey-challenge', { timeout: STEP_MS });
    const { challenge, rpId } = JSON.parse(await text(tab, '#passkey-challenge')) as { challenge: string; rpId: string };
    const b64 = (bytes: Buffer) => bytes.toString('base64url');
    const credential = b64(Buffer.from('dashboard-test-credential'));
    const assertion = {
      id: credential,
      rawId: credential,
      type: 'public-key',
      response: {
        clientDataJSON: b64(Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin: `https://${rpId}` }))),
        // rpIdHash, flags user present + verified, sign count 0.
        authenticatorData: b64(Buffer.concat([createHash('sha256').update(rpId).digest(), Buffer.from([0x05, 0, 0, 0, 0])])),
        signature: b64(Buffer.from('unchecked without a registered credential')),
      },
    };
    await tab.type('#assertion', JSON.stringify(assertion));
    await tab.click('.passkey button[type="submit"]');
    await tab.waitForSelector('#passkey-code', { timeout: STEP_MS });
    await tab.waitForFunction(() => /^\d{4}$/.test(document.querySelector('#passkey-code')?.textContent ?? ''), { timeout: STEP_MS });
    expect(await text(tab, '#passkey-code')).toBe((await gw.api('GET', '/api/pk/auth/passkey/confirmation')).body.code);
    await shot(tab, '8-passkey-confirmation');
    await tab.click('.passkey button');
    await tab.waitForSelector('#working', { timeout: STEP_MS });
    await context.close();
  });

  it('made no request outside the gateway, and broke no CSP rule', () => {
    expect(foreign).toEqual([]);
    expect(violations).toEqual([]);
  });
});
