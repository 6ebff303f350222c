/**
 * A spin button whose app reads its text its own way (gtk4-demo's hexadecimal spin button:
 * "10" means 16): typed in the background, the number is set as its value, and the summary
 * says what its text now reads, so the agent knows the app did not parse it. Oracle: the
 * field's text and value as pyatspi reads them.
 */
import { expect, it } from 'vitest';
import { sessionPerSuite } from './helpers/suite-session.js';
import { describeNeeding, program } from './helpers/needs.js';
import { waitForApp } from './helpers/oracle.js';

describeNeeding(
  [program('gtk4-demo', 'gtk-4-examples')],
  "gtk4-demo's hexadecimal spin button",
  () => {
    const get = sessionPerSuite();

    it('typed into in the background: its value is the number, and its text is reported', async () => {
      const session = get();
      const app = await session.launch('gtk4-demo', ['--run=spinbutton'], { name: 'spinbutton' });
      await waitForApp(
        session,
        app.pid,
        (els) => els.find((e) => e.role === 'spin button' && e.text?.startsWith('0x')),
        'the hexadecimal spin button',
      );
      const r = await session.call('ax_type', {
        app: app.pid,
        query: 'Hexadecimal',
        text: '10',
        clear_first: true,
      });
      expect(r.isError, r.text).toBe(false);
      const hex = await waitForApp(
        session,
        app.pid,
        (els) => els.find((e) => e.role === 'spin button' && e.value === 10),
        'the value 10',
      );
      expect(hex.text).toBe('0x0A');
      expect(r.text).toMatch(/its text reads '0x0A', not '10'/);
      await app.stop();
    });
  },
);
