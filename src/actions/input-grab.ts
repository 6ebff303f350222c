/**
 * Foreground input is refused while another client holds the keyboard or the pointer
 * grabbed: X then sends every key and click to that client, whatever window is in front (a
 * password prompt grabs the keyboard so that its passphrase reaches it alone). Asked before
 * the app is fronted and again right before the input goes.
 */
import { AxError } from '../errors.js';
import type { Scene } from './types.js';

export async function assertInputFree(scene: Scene): Promise<void> {
  const device = await scene.desktop.grabbedInput(scene.pid);
  if (!device) return;
  throw new AxError(
    'action_failed',
    `another window holds the ${device} (a password prompt?): nothing was sent, since X would deliver it there`,
    'Wait until that window is answered or closed by the person, then try again; background delivery (delivery_mode "background") sends no input events and still works',
  );
}
