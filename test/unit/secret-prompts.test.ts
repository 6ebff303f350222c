import { describe, expect, it } from 'vitest';
import { looksLikeSecretPrompt } from '../../src/platform/linux/prompts.js';

describe('looksLikeSecretPrompt', () => {
  it('knows password prompts by their title or X class', () => {
    for (const w of [
      { title: 'Enter passphrase' },
      { title: 'OpenSSH Authentication Passphrase request' },
      { title: '', wmClass: 'Pinentry', wmInstance: 'pinentry' },
      { title: 'x', wmClass: 'Ssh-askpass' },
      { title: 'Authentication Required', wmClass: 'Polkit-gnome-authentication-agent-1' },
      { title: 'Password for wifi' },
      { title: 'Enter PIN' },
      { title: 'Unlock Login Keyring' },
    ]) {
      expect(looksLikeSecretPrompt(w), JSON.stringify(w)).toBe(true);
    }
  });

  it('leaves other windows alone', () => {
    for (const w of [
      { title: 'Notes' },
      { title: 'xterm', wmClass: 'XTerm', wmInstance: 'xterm' },
      { title: 'Spinning', wmClass: null },
      { title: 'Compass' },
    ]) {
      expect(looksLikeSecretPrompt(w), JSON.stringify(w)).toBe(false);
    }
  });
});
