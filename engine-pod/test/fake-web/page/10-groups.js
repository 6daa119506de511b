// Groups: their metadata (WAWebCollections.GroupMetadata, a group chat's `groupMetadata`) and
// the jobs whatsapp-web.js calls to create, read and change them (WAWebGroupCreateJob,
// WAWebGroupQueryJob, WAWebGroupModifyInfoJob, WAWebModifyParticipantsGroupAction,
// WASmaxGroupsAddParticipantsRPC, WAWebMexFetchGroupInviteCodeJob, WAWebSetPropertyGroupAction,
// WAWebGroupInviteJob, WAWebExitGroupAction), and
// WAWebWidToJid; the members' look-ups are 11-contacts.js's (WAWebQueryExistsJob). The groups
// live in the backend: it answers each job and tells the page every change as the group's new
// metadata and a `gp2` notification message, from which the library makes its group events.
(() => {
  const { define, Model, Collection, widOf, backend, collections, chatFor } = window.FakeWeb;

  class ParticipantModel extends Model {
    constructor(attributes) {
      super(attributes);
      this.id = widOf(this.id);
    }
  }
  class Participants extends Collection {
    serialize() {
      return this.getModelsArray().map((participant) => participant.serialize());
    }
  }
  class GroupMetadataModel extends Model {
    constructor(attributes) {
      super(attributes);
      this.id = widOf(this.id);
      this.participants = new Participants(ParticipantModel);
    }
  }

  /** The group's metadata as the backend has it now, and its chat. */
  function apply(metadata) {
    const { participants, ...fields } = metadata;
    let group = collections.GroupMetadata.get(metadata.id);
    if (!group) [group] = collections.GroupMetadata.add(new GroupMetadataModel({ id: metadata.id }));
    group.set({ ...fields, id: group.id });
    for (const participant of group.participants.getModelsArray()) group.participants.remove(participant.id);
    group.participants.add(participants.map((participant) => new ParticipantModel(participant)));
    const chat = chatFor(metadata.id);
    chat.set({ name: metadata.subject });
    return group;
  }
  backend.on('group', ({ metadata }) => apply(metadata));

  const ChatModel = collections.Chat.modelClass;
  Object.defineProperty(ChatModel.prototype, 'groupMetadata', {
    get() {
      return this.id.isGroup() ? collections.GroupMetadata.get(this.id) : undefined;
    },
  });
  ChatModel.prototype.iAmAdmin = function iAmAdmin() {
    const me = window.FakeWeb.me.pn;
    return Boolean(this.groupMetadata?.participants.get(me)?.isAdmin);
  };

  /** A request the backend refused is a server error to the library (its `ServerStatusCodeError`). */
  const ask = (type, payload) =>
    backend.request(type, payload).catch((error) => {
      throw Object.assign(new Error(error.message), { name: 'ServerStatusCodeError' });
    });
  const serialized = (wid) => widOf(wid)._serialized;

  define('WAWebGroupCreateJob', () => ({
    createGroup: async ({ title }, participants) => {
      const ids = participants.map(({ phoneNumber }) => serialized(phoneNumber));
      const { metadata, invitable } = await ask('group-create', { subject: title, participants: ids });
      const group = apply(metadata);
      // One WhatsApp may not add (their privacy) is a 403 with a code for a private invitation.
      const refused = invitable.map(({ id, code, expiration }) => ({ wid: widOf(id), error: 403, invite_code: code, invite_code_exp: expiration }));
      return {
        wid: group.id,
        subject: group.subject,
        participants: [
          ...group.participants.getModelsArray().map((p) => ({ wid: p.id, type: p.isSuperAdmin ? 'superadmin' : 'participant' })),
          ...refused,
        ],
      };
    },
  }));
  define('WAWebGroupQueryJob', () => ({
    queryAndUpdateGroupMetadataById: async ({ id }) => apply(await ask('group-get', { id: serialized(id) })),
    resetGroupInviteCode: async (wid) => ({ code: await ask('group-revoke', { id: serialized(wid) }) }),
    queryGroupInvite: async (code) => ask('group-invite-info', { code }),
  }));
  define('WAWebGroupModifyInfoJob', () => ({
    setGroupSubject: (wid, subject) => ask('group-subject', { id: serialized(wid), subject }),
    setGroupDescription: (wid, description, newId) => ask('group-description', { id: serialized(wid), description, descId: newId }),
  }));
  const modify = (action) => (chat, participants) =>
    ask('group-participants', { id: chat.id._serialized, action, participants: participants.map((p) => p.id._serialized) });
  define('WAWebModifyParticipantsGroupAction', () => ({
    removeParticipants: modify('remove'),
    promoteParticipants: modify('promote'),
    demoteParticipants: modify('demote'),
  }));
  define('WASmaxGroupsAddParticipantsRPC', () => ({
    // One member at a time, as the library asks; the answer in the shape of WhatsApp's RPC.
    sendAddParticipantsRPC: async ({ participantArgs, iqTo }) => {
      const ids = participantArgs.map(({ participantJid }) => serialized(participantJid));
      const { results } = await ask('group-participants', { id: serialized(iqTo), action: 'add', participants: ids });
      return {
        name: 'AddParticipantsResponseSuccess',
        value: {
          addParticipant: ids.map((id) => ({
            addParticipantsParticipantAddedOrNonRegisteredWaUserParticipantErrorLidResponseMixinGroup: {
              value: {
                addParticipantsParticipantMixins: {
                  name: results[id] === 200 ? 'ParticipantAdded' : 'ParticipantError',
                  value: results[id] === 200 ? {} : { error: String(results[id]) },
                },
              },
            },
          })),
        },
      };
    },
  }));
  define('WAWebMexFetchGroupInviteCodeJob', () => ({ fetchMexGroupInviteCode: (id) => ask('group-invite', { id: serialized(id) }) }));
  // Settings: `announcement` (only admins send) and `restrict` (only admins edit the info), 1 or 0.
  define('WAWebSetPropertyGroupAction', () => ({
    setGroupProperty: (chat, property, value) => ask('group-setting', { id: chat.id._serialized, property, value }),
  }));
  define('WAWebGroupInviteJob', () => ({
    joinGroupViaInvite: async (code) => ({ gid: widOf(await ask('group-join', { code })) }),
  }));
  define('WAWebExitGroupAction', () => ({ sendExitGroup: (chat) => ask('group-leave', { id: chat.id._serialized }) }));

  define('WAWebWidToJid', () => ({
    widToGroupJid: (wid) => widOf(wid)._serialized,
    widToUserJid: (wid) => widOf(wid).toJid(),
  }));
  window.FakeWeb.applyGroup = apply;
  Object.assign(window.FakeWeb, { GroupMetadataModel, ParticipantModel, Participants });
})();
