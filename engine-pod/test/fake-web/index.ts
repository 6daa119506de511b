export { FakeWhatsAppWeb } from './fake-whatsapp-web.js';
export { ACK, FakeWebPhone } from './phone.js';
