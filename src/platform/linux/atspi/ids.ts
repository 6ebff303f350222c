/**
 * Element ids on AT-SPI: `<bus name><object path>`, e.g. `:1.23/org/a11y/atspi/accessible/42`.
 * The pair is the object's own identity on the bus, stable for the object's lifetime (the
 * bridge keeps one path per live accessible), so the diff can key on it. A bus name never
 * contains "/" and an object path always starts with it, so the split is unambiguous.
 */
import type { ObjectRef } from './bus.js';

export function formatId(bus: string, path: string): string {
  return bus + path;
}

/** The (bus name, object path) of an id; throws a clear error on anything else. */
export function parseId(id: string): ObjectRef {
  const slash = id.indexOf('/');
  if (slash <= 0 || slash === id.length - 1) {
    throw new Error(
      `"${id}" is not an AT-SPI element id (expected <bus name><object path>, e.g. :1.23/org/a11y/atspi/accessible/42)`,
    );
  }
  return [id.slice(0, slash), id.slice(slash)];
}
