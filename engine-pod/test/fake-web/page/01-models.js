// Backbone-style events, models and collections, as WhatsApp Web's models behave for the
// libraries: `on(names, fn)` with space-separated names, `change:<attr>` then `change` events with
// `(model, value, previous)`, collections re-emitting their models' events and `add`/`remove`.
(() => {
  class Emitter {
    constructor() {
      this._listeners = new Map();
    }
    on(names, fn) {
      for (const name of names.split(/\s+/).filter(Boolean)) {
        if (!this._listeners.has(name)) this._listeners.set(name, []);
        this._listeners.get(name).push(fn);
      }
      return this;
    }
    off(names, fn) {
      for (const name of names.split(/\s+/).filter(Boolean)) {
        const list = this._listeners.get(name) ?? [];
        this._listeners.set(name, fn ? list.filter((f) => f !== fn && f._original !== fn) : []);
      }
      return this;
    }
    once(name, fn) {
      const wrapped = (...args) => {
        this.off(name, wrapped);
        fn(...args);
      };
      wrapped._original = fn;
      return this.on(name, wrapped);
    }
    listenerCount(name) {
      return (this._listeners.get(name) ?? []).length;
    }
    trigger(name, ...args) {
      for (const fn of [...(this._listeners.get(name) ?? [])]) {
        try {
          const result = fn(...args);
          if (result && typeof result.catch === 'function') result.catch((e) => console.error(e));
        } catch (error) {
          console.error(error);
        }
      }
    }
  }

  class Model extends Emitter {
    constructor(attributes = {}) {
      super();
      this.collection = null;
      Object.assign(this, attributes);
    }
    set(changes) {
      const changed = [];
      for (const [key, value] of Object.entries(changes)) {
        const previous = this[key];
        if (previous === value) continue;
        this[key] = value;
        changed.push([key, value, previous]);
      }
      for (const [key, value, previous] of changed) {
        this.trigger(`change:${key}`, this, value, previous);
        this.collection?.trigger(`change:${key}`, this, value, previous);
      }
      if (changed.length) {
        this.trigger('change', this);
        this.collection?.trigger('change', this);
      }
    }
    unsafe() {
      return this;
    }
    serialize() {
      const plain = {};
      for (const [key, value] of Object.entries(this)) {
        if (key.startsWith('_') || key === 'collection' || typeof value === 'function') continue;
        plain[key] = value instanceof Collection ? value.getModelsArray().map((m) => m.serialize()) : value;
      }
      return plain;
    }
    /** Backbone's name for it, which WPPConnect's serializers call. */
    toJSON() {
      return this.serialize();
    }
  }

  class Collection extends Emitter {
    constructor(modelClass = Model) {
      super();
      this.modelClass = modelClass;
      this._models = new Map();
    }
    static keyOf(id) {
      return typeof id === 'string' ? id : id?._serialized;
    }
    get(id) {
      return this._models.get(Collection.keyOf(id));
    }
    add(models) {
      const added = [];
      for (const item of Array.isArray(models) ? models : [models]) {
        const model = item instanceof Model ? item : new this.modelClass(item);
        const key = Collection.keyOf(model.id);
        if (this._models.has(key)) {
          added.push(this._models.get(key));
          continue;
        }
        model.collection = this;
        this._models.set(key, model);
        added.push(model);
        this.trigger('add', model);
      }
      return added;
    }
    /** By model or by id (a message's MsgKey has an `id` of its own, so a model is told by its class). */
    remove(id) {
      const key = Collection.keyOf(id instanceof Model ? id.id : id);
      const model = this._models.get(key);
      if (!model) return undefined;
      this._models.delete(key);
      this.trigger('remove', model);
      return model;
    }
    getModelsArray() {
      return [...this._models.values()];
    }
    get length() {
      return this._models.size;
    }
    get models() {
      return this.getModelsArray();
    }
    filter(fn) {
      return this.getModelsArray().filter(fn);
    }
    async find(id) {
      return this.get(id) ?? null;
    }
    toArray() {
      return this.getModelsArray();
    }
  }

  window.FakeWeb.Emitter = Emitter;
  window.FakeWeb.Model = Model;
  window.FakeWeb.Collection = Collection;
})();
