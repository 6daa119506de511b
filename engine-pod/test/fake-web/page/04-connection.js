// The connection and pairing modules, up to `ready`:
// - WAWebSocketModel.Socket: `state` (OPENING, UNPAIRED, CONNECTED) and `hasSynced`; the library
//   waits for `change:hasSynced` to announce `authenticated` and `ready`, so the page sets it only
//   once a listener is there (WhatsApp Web's sync takes a while; ours would be too quick otherwise).
// - WAWebConnModel.Conn: `ref` (every change is a new QR code), `serialize()` for `client.info`.
// - the keys a QR code is made of (WAWebCompanionRegClientUtils, WAWebSignalStoreApi,
//   WAWebUserPrefsMultiDevice), and phone-code pairing (WAWebAltDeviceLinkingApi).
// The pairing lives in the backend; the page keeps a mark on its origin (localStorage), as WhatsApp
// Web keeps its keys there, so a browser profile restored from the auth-state store resumes
// without a QR code.
(() => {
  const { define, Model, Emitter, backend, widOf } = window.FakeWeb;
  const LOGIN_KEY = 'fake-web-login';
  window.Debug = { VERSION: window.__FAKE_WEB__.version };

  const Socket = new Model({ state: 'OPENING', hasSynced: false, stream: 'CONNECTED' });
  Socket.logout = async () => {
    localStorage.removeItem(LOGIN_KEY);
    await backend.request('logout');
    Conn.set({ connected: false });
    Socket.set({ state: 'UNPAIRED', hasSynced: false });
    // As WhatsApp Web's: the logout is announced on Cmd once the servers have it (wa-js waits for it).
    Cmd.trigger('logout');
  };
  Socket.takeover = () => backend.send('takeover');
  const Conn = new Model({ ref: null, platform: 'android', pushname: '', battery: 100, plugged: true });
  Conn.serialize = () => ({ pushname: Conn.pushname, platform: Conn.platform, phone: Conn.phone ?? null });
  // `isMainLoaded` and `main_loaded`: the chat screen is up (signed in), which wa-js waits for.
  class CmdImpl extends Emitter {}
  const Cmd = new CmdImpl();
  Cmd.isMainLoaded = false;
  Cmd.refreshQR = () => backend.send('refresh-qr');
  const Stream = new Model({ available: false, mode: 'QR' });
  // As WhatsApp Web's: the account's presence is sent to the servers (WAWebPresenceChatAction, 11-contacts.js).
  Stream.markAvailable = () => {
    Stream.set({ available: true });
    return window.require('WAWebPresenceChatAction').sendPresenceAvailable();
  };
  Stream.markUnavailable = () => {
    Stream.set({ available: false });
    return window.require('WAWebPresenceChatAction').sendPresenceUnavailable();
  };

  const me = { pn: null, lid: null };
  const randomBytes = (n) => crypto.getRandomValues(new Uint8Array(n)).buffer;
  const keys = { noise: randomBytes(32), identity: randomBytes(32), adv: btoa(String.fromCharCode(...new Uint8Array(randomBytes(32)))) };

  function signIn(login) {
    me.pn = widOf(login.me.id);
    me.lid = login.me.lid ? widOf(login.me.lid) : null;
    Conn.set({ pushname: login.me.pushName ?? '', platform: login.me.platform ?? 'android', phone: { wa_version: '2.25.1' } });
    localStorage.setItem(LOGIN_KEY, JSON.stringify({ token: login.token }));
    Stream.set({ mode: 'SYNCING' });
    Conn.set({ connected: true });
    Socket.set({ state: 'CONNECTED' });
    syncWhenListened();
    if (!Cmd.isMainLoaded) {
      Cmd.isMainLoaded = true;
      Cmd.trigger('main_loaded');
    }
    window.FakeWeb.signedIn?.(login);
  }
  function syncWhenListened() {
    if (Socket.listenerCount('change:hasSynced') > 0) {
      Stream.set({ mode: 'MAIN' });
      Socket.set({ hasSynced: true });
    } else setTimeout(syncWhenListened, 50);
  }

  backend.on('unpaired', ({ ref }) => {
    localStorage.removeItem(LOGIN_KEY);
    me.pn = me.lid = null;
    Conn.set({ ref, connected: false });
    Stream.set({ mode: 'QR' });
    Socket.set({ state: 'UNPAIRED', hasSynced: false });
  });
  backend.on('ref', ({ ref }) => Conn.set({ ref }));
  backend.on('signed-in', (login) => signIn(login));
  // The phone unlinked this device: WhatsApp Web drops to UNPAIRED, which the library reports.
  backend.on('unlinked', () => {
    localStorage.removeItem(LOGIN_KEY);
    Conn.set({ connected: false });
    Socket.set({ state: 'UNPAIRED', hasSynced: false });
  });
  backend.on('state', ({ state }) => Socket.set({ state }));
  const saved = JSON.parse(localStorage.getItem(LOGIN_KEY) ?? 'null');
  backend.send('hello', { token: saved?.token ?? null });

  define('WAWebSocketModel', () => ({ Socket }));
  // ClientInfo reads the battery through the module as well as through Conn.
  define('WAWebConnModel', () => ({
    Conn,
    get battery() {
      return Conn.battery;
    },
    get plugged() {
      return Conn.plugged;
    },
  }));
  define('WAWebCmd', () => ({ Cmd, CmdImpl }));
  define('WAWebStreamModel', () => ({ Stream }));
  define('WAWebOfflineHandler', () => ({ OfflineMessageHandler: { getOfflineDeliveryProgress: () => 100 } }));
  define('WAWebCompanionRegClientUtils', () => ({ DEVICE_PLATFORM: 'CHROME' }));
  define('WAWebAdvSignatureApi', () => ({}));
  define('WAWebUserPrefsInfoStore', () => ({ waNoiseInfo: { get: async () => ({ staticKeyPair: { pubKey: keys.noise } }) } }));
  define('WAWebSignalStoreApi', () => ({
    waSignalStore: { getRegistrationInfo: async () => ({ identityKeyPair: { pubKey: keys.identity } }) },
  }));
  define('WAWebUserPrefsMultiDevice', () => ({ getADVSecretKey: () => keys.adv, setADVSignedIdentity: () => {} }));
  // Whether this device is paired: the saved login on the page's origin (WhatsApp Web's own check
  // reads its stored login tokens the same way).
  const loggedIn = () => localStorage.getItem(LOGIN_KEY) !== null;
  define('WAWebLoginStateUtils', () => ({ isRegistered: loggedIn, isLoggedIn: loggedIn }));
  window.FakeWeb.connection = { Socket, Conn, Cmd, Stream, keys, loggedIn };
  define('WAWebUserPrefsMeUser', () => ({
    getMaybeMePnUser: () => me.pn,
    getMaybeMeLidUser: () => me.lid,
    getMePnUserOrThrow: () => {
      if (!me.pn) throw new Error('not logged in');
      return me.pn;
    },
    isMeAccount: (wid) => Boolean(wid && (me.pn?.equals(wid) || me.lid?.equals(wid))),
  }));
  define('WAWebAltDeviceLinkingApi', () => ({
    setPairingType: () => {},
    initializeAltDeviceLinking: async () => {},
    initializeQRLinking: async () => {},
    startAltLinkingFlow: (phoneNumber) => backend.request('request-code', { phoneNumber }),
    // wa-js's name for the same request (WPP.conn.genLinkDeviceCodeForPhoneNumber).
    genLinkDeviceCodeForPhoneNumber: (phoneNumber) => backend.request('request-code', { phoneNumber }),
  }));
  define('WAWebLaunchSocketUtils', () => ({ refreshQR: () => backend.send('refresh-qr') }));
  define('WAWebMiscBrowserUtils', () => ({ info: () => ({ name: 'Chrome', os: 'Linux', version: '140' }) }));
  define('WAWebSyncGatingUtils', () => ({ isPlaceholderMessageResendEnabled: () => false }));
  window.FakeWeb.me = me;
})();
