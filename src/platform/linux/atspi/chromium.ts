/**
 * What Chromium's accessibility bridge (and so Electron's) needs beyond the common AT-SPI
 * reads. Chromium answers `Action.GetActions` with empty names (it fills in only the
 * localized name, and leaves that empty), while `Action.GetName(i)` gives the real ones
 * ("press", "check", "jump", "select", "activate"): without them no background click
 * could pick an action (read by index, action-strings.ts). And every Chromium container has a Text interface whose text is
 * one U+FFFC (embedded object) per child: not a value worth showing.
 */

/** True when a GetActions answer carries no names at all, as Chromium's does. */
export function namesMissing(names: readonly string[]): boolean {
  return names.length > 0 && names.every((n) => n === '');
}

/** Text made of nothing but embedded-object characters (U+FFFC): a container's, not a value. */
export function embedsOnly(text: string): boolean {
  return text.length > 0 && /^\uFFFC+$/.test(text);
}
