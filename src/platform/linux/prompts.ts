/**
 * Windows that ask for a secret without accessibility: pinentry, ssh-askpass, polkit
 * agents and the like often run with no AT-SPI bridge, so no lookup can say where their
 * password field is. Their title or X class says what they are: such a window is filled
 * whole in every capture.
 */

/** The X facts a window is judged by (see x11.ts listWindows). */
export interface PromptFacts {
  title: string;
  wmClass?: string | null;
  wmInstance?: string | null;
}

/**
 * Words in a window's title or class that say it asks for a secret. Broad on purpose: a
 * window filled for nothing costs a look, one left bare can cost the secret.
 */
const SECRET_PROMPT =
  /pass(?:word|phrase|wd|code)|\bpin\b|pinentry|askpass|authenticat|polkit|unlock|credential|keyring/i;

export function looksLikeSecretPrompt(w: PromptFacts): boolean {
  return [w.title, w.wmClass, w.wmInstance].some((s) => s && SECRET_PROMPT.test(s));
}
