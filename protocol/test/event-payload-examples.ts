/**
 * Realistic payloads of every event, as spec 6.2 describes them. Builders return fresh objects so
 * a test can break one without touching the others.
 */

const ALICE = '15551234567@c.us';
const ME = '15550000000@c.us';
const GROUP = '120363041234567890@g.us';
const MEMBER = '207726512345678@lid';

export function messageRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `false_${ALICE}_3EB0C767D26A1D2B2F1A`,
    timestamp: 1730000000,
    from: ALICE,
    fromMe: false,
    source: 'app',
    to: ME,
    participant: null,
    body: 'Hi, is the order ready?',
    hasMedia: false,
    media: null,
    ack: 2,
    ackName: 'DEVICE',
    vCards: [],
    _data: { notifyName: 'Alice', type: 'chat' },
    ...overrides,
  };
}

export const sessionStatus = () => ({
  name: 'default',
  status: 'WORKING',
  statuses: [
    { status: 'STOPPED', timestamp: 1730000000000 },
    { status: 'STARTING', timestamp: 1730000001000 },
    { status: 'WORKING', timestamp: 1730000004000 },
  ],
});

export const groupAck = () => ({
  id: `true_${GROUP}_3EB0AB12CD34EF56_${MEMBER}`,
  from: GROUP,
  participant: MEMBER,
  fromMe: true,
  ack: 3,
  ackName: 'READ',
});

export const reaction = () => ({
  id: `false_${ALICE}_3EB0D1E2F3A4B5C6`,
  from: ALICE,
  fromMe: false,
  participant: null,
  to: ME,
  timestamp: 1730000100,
  source: 'app',
  reaction: { text: '👍', messageId: `true_${ALICE}_3EB0C767D26A1D2B2F1A` },
});

export const edited = () => ({
  id: `false_${ALICE}_3EB0E5E5E5E5E5E5`,
  editedMessageId: '3EB0C767D26A1D2B2F1A',
  body: 'Hi, is the order ready? (edited)',
  from: ALICE,
  fromMe: false,
  timestamp: 1730000200,
  _data: { protocolMessage: { type: 'MESSAGE_EDIT' } },
});

export const revoked = () => ({
  after: {
    id: `false_${ALICE}_3EB0F0F0F0F0F0F0`,
    timestamp: 1730000300,
    from: ALICE,
    body: '',
    _data: { type: 'revoked' },
  },
  revokedMessageId: '3EB0C767D26A1D2B2F1A',
  before: null,
});

export const chatArchive = () => ({ id: ALICE, timestamp: 1730000400, archived: true });

export const groupInfo = () => ({
  id: GROUP,
  subject: 'Weekend hiking',
  description: 'Routes and meeting points',
  invite: 'https://chat.whatsapp.com/AbCdEfGhIjKlMnOpQrStUv',
  membersCanAddNewMember: false,
  membersCanSendMessages: true,
  newMembersApprovalRequired: true,
  participants: [
    { id: ME, role: 'participant' },
    { id: MEMBER, role: 'superadmin' },
  ],
});

export const groupJoin = () => ({ group: groupInfo(), timestamp: 1730000500, _data: { action: 'add' } });
export const groupLeave = () => ({
  group: { id: GROUP },
  timestamp: 1730000600,
  _data: { action: 'remove' },
});
export const groupParticipants = () => ({
  type: 'promote',
  timestamp: 1730000700,
  group: { id: GROUP },
  participants: [{ id: MEMBER, role: 'admin' }],
  _data: { action: 'promote', author: ME },
});
export const groupUpdate = () => ({
  group: { id: GROUP, subject: 'Weekend hiking 🏔' },
  timestamp: 1730000800,
  _data: { action: 'subject' },
});

export const presenceUpdate = () => ({
  id: GROUP,
  presences: [
    { participant: MEMBER, lastKnownPresence: 'typing', lastSeen: null },
    { participant: ALICE, lastKnownPresence: 'offline', lastSeen: 1730000850 },
  ],
});

const pollKey = { id: `true_${GROUP}_3EB0POLL0001`, to: GROUP, from: ME, fromMe: true };

export const pollVote = () => ({
  vote: {
    id: `false_${GROUP}_3EB0VOTE0001_${MEMBER}`,
    to: GROUP,
    from: MEMBER,
    fromMe: false,
    selectedOptions: ['Saturday'],
    timestamp: 1730000900,
  },
  poll: { ...pollKey },
});

export const pollVoteFailed = () => {
  const payload = pollVote();
  return { ...payload, vote: { ...payload.vote, selectedOptions: [] } };
};

export const eventResponse = () => ({
  id: `false_${GROUP}_3EB0RSVP0001_${MEMBER}`,
  timestamp: 1730001000,
  from: GROUP,
  fromMe: false,
  to: ME,
  participant: MEMBER,
  source: 'app',
  ack: 1,
  ackName: 'SERVER',
  replyTo: null,
  body: '',
  _data: { type: 'event_response' },
  eventCreationKey: { id: `true_${GROUP}_3EB0EVENT001`, to: GROUP, from: ME, fromMe: true },
  eventResponse: { response: 'GOING', timestampMs: 1730001000123, extraGuestCount: 1 },
});

export const eventResponseFailed = () => ({ ...eventResponse(), eventResponse: null });

export const label = () => ({ id: '3', name: 'Paid', color: 5, colorHex: '#64c4ff' });
export const labelDeleted = () => ({ ...label(), name: '' });
export const labelChat = () => ({ labelId: '3', chatId: ALICE, label: label() });

export const call = () => ({
  id: 'C9A1B2C3D4E5F60718293A4B5C6D7E8F',
  from: ALICE,
  timestamp: 1730001100,
  isVideo: false,
  isGroup: false,
  _data: { offerTime: 1730001100 },
});

export const engineEvent = () => ({ event: 'connection.update', data: { connection: 'open' } });
export const legacyGroupJoin = () => ({ id: { remote: GROUP }, recipientIds: [ME], type: 'add' });
export const stateChange = () => ({ state: 'CONNECTED' });

export function envelope(event: string, payload: unknown): Record<string, unknown> {
  return {
    id: 'evt_01jc6r8x3v9f7q2m4n5p6s7t8w',
    timestamp: 1730000000123,
    event,
    session: 'default',
    metadata: { 'user.id': '123' },
    me: { id: ME, pushName: 'Shop' },
    environment: { tier: 'CORE', version: '2026.11.0', engine: 'SANDBOX', platform: 'linux/x64', worker: { id: 'gateway-0' } },
    engine: 'SANDBOX',
    payload,
  };
}

/** A copy of `value` without `key`. */
export function without<T extends object>(value: T, key: keyof T): Partial<T> {
  const copy = { ...value };
  delete copy[key];
  return copy;
}
