// What WPPConnect's wa-js needs of WhatsApp Web's module system beyond what 00-modules.js gives:
// it requires every module through `importNamespace` after `ErrorGuard.skipGuardGlobal(true)`
// (WhatsApp Web's error guard, which it turns off so that a module that throws is skipped).
(() => {
  window.ErrorGuard = { skipGuardGlobal: () => {} };
})();
