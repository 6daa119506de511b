// Groups as WPPConnect's wa-js finds them (its src/group/ and src/whatsapp/functions/): the group
// metadata collection and its models with the rights WhatsApp Web answers from them (`iAmAdmin`,
// `canPromote`, `canSetSubject`, ...), and the jobs in the call forms wa-js uses, which differ from
// whatsapp-web.js's (10-groups.js): a group's Wid rather than its chat, `sendSetGroupProperty`
// with WhatsApp's property names. wa-js finds each module by its exports, so the names here are
// ours; each asks the same backend as 10-groups.js, which tells the page every change as the
// group's new metadata and a `gp2` notification. WhatsApp Web hands each member change of such a
// notification to `updateDBForGroupAction`, which wa-js wraps to make its
// `group.participant_changed` event: the page does the same.
(() => {
  const { define, collections, backend, widOf, GroupMetadataModel, ParticipantModel, Participants } = window.FakeWeb;

  const ask = (type, payload) =>
    backend.request(type, payload).catch((error) => {
      throw Object.assign(new Error(error.message), { name: 'ServerStatusCodeError' });
    });
  const serialized = (wid) => widOf(wid)._serialized;
  const me = () => window.FakeWeb.me.pn;

  // The rights WhatsApp Web reads off a group's members (ParticipantCollection) and metadata.
  Object.assign(Participants.prototype, {
    mine() {
      return me() ? this.get(me()) : undefined;
    },
    iAmMember() {
      return Boolean(this.mine());
    },
    iAmAdmin() {
      return Boolean(this.mine()?.isAdmin);
    },
    iAmSuperAdmin() {
      return Boolean(this.mine()?.isSuperAdmin);
    },
    iAmRestrictedMember() {
      return false;
    },
    canAdd() {
      return this.iAmAdmin();
    },
    canPromote(participant) {
      return this.iAmAdmin() && !participant.isAdmin;
    },
    canDemote(participant) {
      return this.iAmAdmin() && Boolean(participant.isAdmin) && !participant.isSuperAdmin;
    },
    canRemove(participant) {
      return this.iAmAdmin() && !participant.isSuperAdmin;
    },
    getAdmins() {
      return this.filter((participant) => participant.isAdmin);
    },
    getSuperAdmin() {
      return this.getModelsArray().find((participant) => participant.isSuperAdmin);
    },
  });
  // Only admins edit the info while `restrict` is on; settings are always admins'.
  const mayEditInfo = (group) => !group.restrict || group.participants.iAmAdmin();
  Object.assign(GroupMetadataModel.prototype, {
    // The metadata is the server's as soon as it is here (wa-js's `create` waits for that).
    stale: false,
    canSetSubject() {
      return mayEditInfo(this);
    },
    canSetDescription() {
      return mayEditInfo(this);
    },
    canSetGroupProperty() {
      return this.participants.iAmAdmin();
    },
    canSetEphemeralSetting() {
      return this.participants.iAmAdmin();
    },
  });
  ParticipantModel.prototype.proxyName = 'participant';
  define('WAWebParticipantModel', () => ({ default: ParticipantModel, ParticipantModel }));
  define('WAWebParticipantCollection', () => ({ default: Participants }));
  // wa-js tells the metadata collection's class by this method of WhatsApp Web's.
  collections.GroupMetadata._handleParentGroupChange = () => {};

  /** The group's Group/GroupInfo shape: Wids where WhatsApp Web has them. */
  const groupInfo = (metadata) => ({
    ...metadata,
    id: widOf(metadata.id),
    owner: metadata.owner ? widOf(metadata.owner) : undefined,
    size: metadata.participants.length,
    participants: metadata.participants.map((participant) => ({ ...participant, id: widOf(participant.id) })),
  });

  define('WAWebGroupQueryAllJob', () => ({
    queryAllGroups: async () => {
      const groups = await ask('group-list', {});
      for (const metadata of groups) window.FakeWeb.applyGroup(metadata);
      return groups.map((metadata) => ({ ...groupInfo(metadata), participants: metadata.participants.map((p) => widOf(p.id)) }));
    },
  }));
  define('WAWebGroupCreateJobWaJs', () => ({
    sendCreateGroup: async (title, participants) => {
      const { metadata } = await ask('group-create', { subject: title, participants: participants.map(serialized) });
      const group = window.FakeWeb.applyGroup(metadata);
      return {
        gid: group.id,
        participants: metadata.participants.map((p) => ({ userWid: widOf(p.id), code: '200', invite_code: null, invite_code_exp: null })),
      };
    },
  }));
  define('WAWebGroupInviteInfoJob', () => ({
    sendQueryGroupInvite: async (code) => ({ groupInfo: groupInfo(await ask('group-invite-info', { code })), status: 200 }),
    sendJoinGroupViaInvite: async (code) => ({ gid: widOf(await ask('group-join', { code })), membershipApprovalMode: false }),
  }));
  define('WAWebGroupSetInfoJob', () => ({
    sendSetGroupSubject: (wid, subject) => ask('group-subject', { id: serialized(wid), subject }),
    sendSetGroupDescription: (wid, description, tagId) => ask('group-description', { id: serialized(wid), description, descId: tagId }),
    // `announcement` or `restrict`, 1 or 0.
    sendSetGroupProperty: (wid, property, value) => ask('group-setting', { id: serialized(wid), property, value }),
  }));

  /** Adding answers each member's code, as WhatsApp's server does (200 added, 409 a member already, ...). */
  const sendAdd = async (group, members) => {
    const ids = members.map((member) => serialized(member.phoneNumber ?? member));
    const { results } = await ask('group-participants', { id: serialized(group), action: 'add', participants: ids });
    return {
      status: 207,
      participants: ids.map((id) => ({ userWid: widOf(id), code: String(results[id]), invite_code: null, invite_code_exp: null })),
    };
  };
  const change = (action) => async (group, participants) => {
    const ids = participants.map((participant) => serialized(participant.id ?? participant));
    await ask('group-participants', { id: serialized(group.id ?? group), action, participants: ids });
  };
  define('WAWebGroupParticipantsJob', () => ({
    sendAddParticipants: sendAdd,
    sendRemoveParticipants: change('remove'),
    sendPromoteParticipants: change('promote'),
    sendDemoteParticipants: change('demote'),
  }));
  // The chat-level actions wa-js calls with the group's chat and its participant models.
  define('WAWebGroupParticipantsAction', () => ({
    addParticipants: async (chat, participants) =>
      sendAdd(
        chat.id,
        participants.map((participant) => participant.id),
      ),
    removeParticipants: change('remove'),
    promoteParticipants: change('promote'),
    demoteParticipants: change('demote'),
    promoteCommunityParticipants: change('promote'),
    demoteCommunityParticipants: change('demote'),
  }));

  // wa-js sets a renamed group's title itself; the fake derives it from the chat's name, which the
  // backend's new metadata sets.
  const ChatModel = collections.Chat.modelClass;
  const title = Object.getOwnPropertyDescriptor(ChatModel.prototype, 'formattedTitle');
  if (title?.get && !title.set) Object.defineProperty(ChatModel.prototype, 'formattedTitle', { ...title, set() {} });

  // Group notifications are notifications, not chat messages (WPPConnect's onNotificationMessage).
  Object.defineProperty(window.FakeWeb.MsgModel.prototype, 'isNotification', {
    configurable: true,
    get() {
      return this.type === 'gp2';
    },
  });

  // A gp2 notification's member change, as WhatsApp Web hands it on (wa-js wraps this function).
  define('WAWebGroupActionDBUpdate', () => ({ updateDBForGroupAction: () => {} }));
  const ACTION = { add: 'add', invite: 'add', remove: 'remove', leave: 'remove', promote: 'promote', demote: 'demote' };
  collections.Msg.on('add', (msg) => {
    if (msg.type !== 'gp2' || !ACTION[msg.subtype]) return;
    const participants = (msg.recipients ?? []).map((id) => widOf(id));
    const actionType = ACTION[msg.subtype];
    const action = { action: actionType, actionType, isInvite: msg.subtype === 'invite', participants, reason: msg.subtype };
    const meta = { actions: [action], author: msg.author, chatId: msg.id.remote, externalId: msg.id.id, offline: null, pushname: '', ts: msg.t };
    window.require('WAWebGroupActionDBUpdate').updateDBForGroupAction(meta, action);
  });
})();
