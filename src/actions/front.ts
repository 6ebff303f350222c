/**
 * Foreground input with the app fronted. If anything fails once the window is in front,
 * the previously active window is put back before the error goes up.
 */
import type { Scene } from './types.js';

export async function fronted<T>(
  scene: Scene,
  send: () => Promise<T>,
): Promise<{ result: T; restore: () => Promise<void> }> {
  const restore = await scene.desktop.activate(scene.pid);
  try {
    return { result: await send(), restore };
  } catch (err) {
    await restore().catch(() => undefined);
    throw err;
  }
}
