/**
 * Foreground input with the app fronted. If anything fails once the window is in front,
 * the previously active window is put back before the error goes up. No input goes while
 * another client holds the keyboard or pointer (input-grab.ts): checked before fronting,
 * so nothing moves, and again once fronted, right before the input.
 */
import { assertInputFree } from './input-grab.js';
import type { Scene } from './types.js';

export async function fronted<T>(
  scene: Scene,
  send: () => Promise<T>,
): Promise<{ result: T; restore: () => Promise<void> }> {
  await assertInputFree(scene);
  const restore = await scene.desktop.activate(scene.pid);
  try {
    await assertInputFree(scene);
    return { result: await send(), restore };
  } catch (err) {
    await restore().catch(() => undefined);
    throw err;
  }
}
