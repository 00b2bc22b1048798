// @peculiar/x509 v2 depends on tsyringe, which refuses to load unless a
// Reflect metadata polyfill (reflect-metadata & co.) is installed. x509 only
// needs the three functions below, so instead of another dependency we install
// a minimal WeakMap-backed version, and only when no real polyfill is present.
// Import this module (for its side effect) before '@peculiar/x509'.

type Meta = Map<unknown, unknown>;
type Target = object;
type Key = string | symbol | undefined;

interface ReflectMetadataApi {
  defineMetadata(key: unknown, value: unknown, target: Target, prop?: Key): void;
  getOwnMetadata(key: unknown, target: Target, prop?: Key): unknown;
  getMetadata(key: unknown, target: Target, prop?: Key): unknown;
}

const api = Reflect as unknown as Partial<ReflectMetadataApi>;

if (typeof api.getMetadata !== 'function') {
  // Keyed by target, then by property key (undefined = the class itself).
  const store = new WeakMap<Target, Map<Key, Meta>>();
  const metaOf = (target: Target, prop: Key, create: boolean): Meta | undefined => {
    let byProp = store.get(target);
    if (!byProp) {
      if (!create) return undefined;
      byProp = new Map();
      store.set(target, byProp);
    }
    let meta = byProp.get(prop);
    if (!meta && create) {
      meta = new Map();
      byProp.set(prop, meta);
    }
    return meta;
  };
  const impl: ReflectMetadataApi = {
    defineMetadata: (key, value, target, prop) => void metaOf(target, prop, true)!.set(key, value),
    getOwnMetadata: (key, target, prop) => metaOf(target, prop, false)?.get(key),
    getMetadata: (key, target, prop) => {
      for (let t: Target | null = target; t; t = Object.getPrototypeOf(t) as Target | null) {
        const meta = metaOf(t, prop, false);
        if (meta?.has(key)) return meta.get(key);
      }
      return undefined;
    },
  };
  Object.assign(Reflect, impl);
}

export {};
