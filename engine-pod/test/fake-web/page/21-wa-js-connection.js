// What WPPConnect's wa-js looks for, up to a paired, ready page. wa-js finds WhatsApp Web's modules
// by their shape, not their names (a module exporting `SOCKET_STATE`, one whose `isLoggedIn`
// answers, ...), and WPPConnect reads the QR code from the login screen itself: the `<canvas>`
// inside the element whose `data-ref` is the code's whole text, as WhatsApp Web draws it.
(() => {
  const { define } = window.FakeWeb;
  const { Socket, Conn, Stream, keys, loggedIn } = window.FakeWeb.connection;
  const b64 = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)));

  const SOCKET_STATE = Object.fromEntries(
    [
      'OPENING',
      'PAIRING',
      'UNPAIRED',
      'UNPAIRED_IDLE',
      'CONNECTED',
      'TIMEOUT',
      'CONFLICT',
      'UNLAUNCHED',
      'PROXYBLOCK',
      'TOS_BLOCK',
      'SMB_TOS_BLOCK',
      'DEPRECATED_VERSION',
    ].map((state) => [state, state]),
  );
  const SOCKET_STREAM = { DISCONNECTED: 'DISCONNECTED', SYNCING: 'SYNCING', RESUMING: 'RESUMING', CONNECTED: 'CONNECTED' };
  define('WAWebSocketConstants', () => ({ SOCKET_STATE, SOCKET_STREAM, WATCHED_SOCKET_STATE: {} }));
  define('WAWebNetworkStatus', () => ({ default: { online: true, checkOnline: () => true, on() {}, off() {} } }));
  define('WAWebBackendEventBus', () => {
    const { Emitter } = window.FakeWeb;
    return { BackendEventBus: new Emitter(), BackendEvent: {} };
  });
  // The running version as WhatsApp Web's build constants give it: wa-js picks call forms by it.
  define('WAWebBuildConstants', () => ({ SANITIZED_VERSION_STR: window.Debug.VERSION, VERSION_STR: window.Debug.VERSION }));
  define('WAWebLogoutReasonUtils', () => ({ getErrorCodeFromLogoutReason: () => null }));

  // The login screen: the QR code while unpaired, the chat list once signed in.
  const app = () => document.getElementById('app');
  function draw() {
    const root = app();
    if (!root) return;
    if (Socket.state === 'UNPAIRED' && Conn.ref && !loggedIn()) {
      const code = [Conn.ref, b64(keys.noise), b64(keys.identity), keys.adv].join(',');
      root.innerHTML = '<div class="landing-wrapper"><div data-ref=""><canvas width="264" height="264"></canvas></div></div>';
      root.querySelector('[data-ref]').setAttribute('data-ref', code);
    } else if (loggedIn()) {
      root.innerHTML = '<div class="two" tabindex="-1"></div>';
    } else root.innerHTML = '';
  }
  Socket.on('change:state', draw);
  Conn.on('change:ref', draw);
  Stream.on('change:mode', draw);
  document.addEventListener('DOMContentLoaded', draw);
})();
