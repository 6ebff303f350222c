/**
 * A desktop with some of its methods replaced, the rest run on the desktop itself (bound
 * to it: a backend keeps its own state). How the pipeline shows tools a desktop that keeps
 * secrets or refuses pointer events, without the tools knowing.
 */
import type { Desktop } from '../platform/desktop.js';

export function withOverrides(desktop: Desktop, overrides: Partial<Desktop>): Desktop {
  return new Proxy(desktop, {
    get(target, prop) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof Desktop];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
}
