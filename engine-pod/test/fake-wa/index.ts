export { FakeWaServer, type FakeWaOptions, type PhoneOptions } from './fake-wa-server.js';
export { FakePhone, type SentMessage } from './phone.js';
export { type FakeGroup, type FakeGroupMember, announceChange, createNotificationChild, descriptionChange, membersChange, subjectChange } from './groups.js';
export type { CallKind, PresenceKind } from './stanzas.js';
