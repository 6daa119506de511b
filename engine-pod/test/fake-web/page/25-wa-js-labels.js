// What wa-js reads of labels (WhatsApp Business) beyond whatsapp-web.js: `Conn.isSMB`, which it
// asserts before changing a chat's labels, `LabelStore.findFirst`, by which `chat.list` names a
// label, and the palette module (`colorIndexToHex` beside `getAllLabelColors`). This fake's labels
// carry their own hexColor and no palette index, so the palette is empty; wa-js reports the
// label's hexColor as its `color` as well.
(() => {
  const { define, collections } = window.FakeWeb;
  const { Conn } = window.require('WAWebConnModel');
  Object.defineProperty(Conn, 'isSMB', {
    configurable: true,
    get: () => ['smba', 'smbi'].includes(Conn.platform),
  });
  collections.Label.findFirst = (fn) => collections.Label.getModelsArray().find(fn);
  define('WAWebLabelColorUtils', () => ({ getAllLabelColors: () => [], colorIndexToHex: () => undefined }));
})();
