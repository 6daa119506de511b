// What wa-js reads of contacts beyond whatsapp-web.js. Once injected, wa-js gives WhatsApp Web's
// ContactModel a read-only getter for each field the model's prototype lacks (`isMyContact`,
// `isWAContact`, ... through WAWebContactGetters): this fake keeps those two on the model itself, so
// they are accessors here, defaulting to false as on a new contact, and wa-js leaves them be. The
// About text is WhatsApp Web's TextStatusCollection, whose `find` asks the server
// (WAWebContactStatusBridge, 11-contacts.js).
(() => {
  const { define, Collection, Model, ContactModel, widOf } = window.FakeWeb;

  for (const field of ['isMyContact', 'isWAContact']) {
    const stored = `_${field}`;
    ContactModel.prototype[stored] = false;
    Object.defineProperty(ContactModel.prototype, field, {
      configurable: true,
      get() {
        return this[stored];
      },
      set(value) {
        this[stored] = value;
      },
    });
  }

  class TextStatusCollection extends Collection {
    async find(id) {
      const wid = widOf(id);
      const { status } = await window.require('WAWebContactStatusBridge').getStatus({ wid });
      const model = this.get(wid) ?? this.add({ id: wid })[0];
      model.set({ status: status ?? undefined });
      return model;
    }
  }
  const statuses = new TextStatusCollection(Model);
  define('WAWebTextStatusCollection', () => ({ TextStatusCollection: statuses }));
})();
