// Account and message ids as WhatsApp Web models them: `Wid` (`user@server`, `_serialized`) from
// WAWebWidFactory, and `WAWebMsgKey` (`<fromMe>_<chat>_<id>[_<participant>]`).
(() => {
  const { define } = window.FakeWeb;

  class Wid {
    constructor(serialized) {
      const text = typeof serialized === 'string' ? serialized : serialized._serialized;
      const at = text.indexOf('@');
      this.user = at < 0 ? text : text.slice(0, at);
      this.server = at < 0 ? 'c.us' : text.slice(at + 1);
      if (this.server === 's.whatsapp.net') this.server = 'c.us';
      this._serialized = `${this.user}@${this.server}`;
    }
    toString() {
      return this._serialized;
    }
    toJid() {
      return this.server === 'c.us' ? `${this.user}@s.whatsapp.net` : this._serialized;
    }
    equals(other) {
      return Boolean(other) && this._serialized === (other._serialized ?? String(other));
    }
    isLid() {
      return this.server === 'lid';
    }
    isUser() {
      return this.server === 'c.us' || this.server === 'lid';
    }
    isGroup() {
      return this.server === 'g.us';
    }
    isStatus() {
      return this._serialized === 'status@broadcast';
    }
    isBroadcast() {
      return this.server === 'broadcast';
    }
    isNewsletter() {
      return this.server === 'newsletter';
    }
    isBot() {
      return this.server === 'bot';
    }
  }
  const widOf = (value) => (value == null ? value : value instanceof Wid ? value : new Wid(value));

  class MsgKey {
    constructor(key) {
      // WhatsApp Web's own words, by which wa-js recognises the class.
      if (key == null) throw new Error('MsgKey error: obj is null/undefined');
      const { from, to, id, participant, selfDir, fromMe, remote } = key;
      this.fromMe = fromMe ?? selfDir === 'out';
      this.remote = widOf(remote ?? (this.fromMe ? to : from));
      this.id = id;
      this.participant = participant ? widOf(participant) : undefined;
      this._serialized = `${this.fromMe}_${this.remote._serialized}_${id}${this.participant ? `_${this.participant._serialized}` : ''}`;
    }
    toString() {
      return this._serialized;
    }
    static async newId() {
      return MsgKey.newIdSync();
    }
    static newIdSync() {
      const bytes = crypto.getRandomValues(new Uint8Array(8));
      return `3EB0${[...bytes]
        .map((b) => b.toString(16).padStart(2, '0'))
        .join('')
        .toUpperCase()}`;
    }
    static fromString(serialized) {
      const [fromMe, remote, id, participant] = serialized.split('_');
      return new MsgKey({ fromMe: fromMe === 'true', remote, id, participant });
    }
  }

  window.FakeWeb.Wid = Wid;
  window.FakeWeb.widOf = widOf;
  window.FakeWeb.MsgKey = MsgKey;
  define('WAWebWidFactory', () => ({
    createWid: (id) => widOf(id),
    createWidFromWidLike: (id) => widOf(id),
    createUserWid: (user, server = 'c.us') => widOf(`${user}@${server}`),
    asUserWidOrThrow: (id) => {
      const wid = widOf(id);
      if (!wid.isUser()) throw new Error(`not a user wid: ${wid}`);
      return wid;
    },
    toUserWid: (id) => widOf(id),
    isWidlike: (value) => Boolean(value && value._serialized),
  }));
  // Both ways of reading the class: whatsapp-web.js takes the module as it, wa-js its `default`.
  MsgKey.default = MsgKey;
  define('WAWebMsgKey', () => MsgKey);
  Wid.isXWid = (server, wid) => widOf(wid)?.server === server;
  define('WAWebWid', () => ({ default: Wid }));
  define('WABase64', () => ({
    encodeB64: (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))),
    decodeB64: (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0)).buffer,
  }));
})();
