export { FAKE_WEB_BROWSER_FLAGS, FakeWhatsAppWeb } from './fake-whatsapp-web.js';
export { ACK, FakeWebPhone } from './phone.js';
