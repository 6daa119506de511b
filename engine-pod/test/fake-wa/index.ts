export { type CertRoot, FakeWaServer, newCertRoot, type PhoneOptions } from './fake-wa-server.js';
export { FakePhone } from './phone.js';
export { announceChange, createNotificationChild, descriptionChange, membersChange, subjectChange } from './groups.js';
