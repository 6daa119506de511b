// Labels (WhatsApp Business): WAWebCollections.Label's models (with `hexColor` and the
// `labelItemCollection` of what they label), a chat's `labels`, and `Label.addOrRemoveLabels`,
// which whatsapp-web.js calls to change them. The backend keeps the labels and their chats and
// tells the page after every change.
(() => {
  const { Model, Collection, backend, collections, chatFor } = window.FakeWeb;
  const { Label } = collections;

  class LabelModel extends Model {
    constructor(attributes) {
      super(attributes);
      this.labelItemCollection = new Collection();
    }
  }

  backend.on('labels', ({ labels }) => {
    const byChat = new Map();
    for (const { chats, ...fields } of labels) {
      const label = Label.get(fields.id) ?? Label.add(new LabelModel({ id: fields.id }))[0];
      label.set(fields);
      for (const item of label.labelItemCollection.getModelsArray()) label.labelItemCollection.remove(item.id);
      label.labelItemCollection.add(chats.map((chat) => ({ id: `${fields.id}:${chat}`, parentType: 'Chat', parentId: chat })));
      for (const chat of chats) byChat.set(chat, [...(byChat.get(chat) ?? []), fields.id]);
    }
    for (const chat of collections.Chat.getModelsArray()) chat.set({ labels: byChat.get(chat.id._serialized) ?? [] });
    for (const [chat, ids] of byChat) chatFor(chat).set({ labels: ids });
  });

  Label.addOrRemoveLabels = (actions, chats) =>
    backend.request('label-change', {
      actions: actions.map(({ id, type }) => ({ id: String(id), type })),
      chats: chats.map((chat) => chat.id._serialized),
    });
})();
