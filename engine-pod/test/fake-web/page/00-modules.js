// The module system WhatsApp Web's bundle defines, as far as the libraries use it:
// `window.require(name)` answers a module's exports; `window.__d(name, deps, factory)` defines one
// (WhatsApp Web's own loader), and `require('__debug').modulesMap` lists them as `{id: {factory}}`,
// which WPPConnect's wa-js searches by shape. A module is made when first required, as there.
(() => {
  const factories = new Map();
  const made = new Map();
  function requireModule(name) {
    if (name === '__debug') return { modulesMap };
    if (made.has(name)) return made.get(name);
    const factory = factories.get(name);
    if (!factory) return null;
    const exports = factory();
    made.set(name, exports);
    return exports;
  }
  const modulesMap = new Proxy(
    {},
    {
      get: (_, id) => (factories.has(id) ? { factory: factories.get(id), exports: made.get(id) } : undefined),
      has: (_, id) => factories.has(id),
      ownKeys: () => [...factories.keys()],
      getOwnPropertyDescriptor: (_, id) =>
        factories.has(id) ? { enumerable: true, configurable: true, value: { factory: factories.get(id) } } : undefined,
    },
  );
  window.require = requireModule;
  window.__d = (name, _deps, factory) => factories.set(name, typeof factory === 'function' ? factory : () => factory);
  window.importNamespace = (name) => requireModule(name);
  /** The fake's own way to define a module: its exports from a function, made on first use. */
  window.FakeWeb = { define: (name, factory) => factories.set(name, factory), modules: () => [...factories.keys()] };
})();
