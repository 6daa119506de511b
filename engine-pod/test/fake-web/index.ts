export { FAKE_WEB_BROWSER_FLAGS, FAKE_WEB_VERSION, FakeWhatsAppWeb, type FakeWhatsAppWebOptions } from './fake-whatsapp-web.js';
export { ACK, type FakeWebAccount, type FakeWebMessage, FakeWebPhone } from './phone.js';
