/**
 * Safe mode: the selections emptied for an action on an app that shows a password field
 * stay empty after the action, not only while it runs. An app may paste when it likes: a
 * timer, a focus handler moving the focus into the password field and pasting (autofill),
 * a command that reads the clipboard straight into the field. What the selections held is
 * offered again when a call acts on an app that shows no password field, when the agent
 * reads or writes the clipboard itself, or when the server stops; unless someone copied
 * meanwhile (that copy stands: see selection-hold.ts).
 */
export class LingeringHold {
  private restore?: () => Promise<void>;

  /** Whether the selections are held empty now, between calls. */
  get active(): boolean {
    return this.restore !== undefined;
  }

  /** Takes over an action's hold: its text is given back later, by release(). */
  async keep(restore: () => Promise<void>): Promise<void> {
    this.restore = restore;
  }

  /**
   * Forgets the hold without giving anything back: someone copied since (a person, an
   * app), and what they copied is what the selections hold now.
   */
  drop(): void {
    this.restore = undefined;
  }

  /** Gives the selections their text back; nothing when none is held. */
  async release(): Promise<void> {
    const restore = this.restore;
    this.restore = undefined;
    await restore?.().catch(() => undefined);
  }
}
