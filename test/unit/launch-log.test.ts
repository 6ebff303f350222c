/**
 * A launched app's output on its way to the log: every known secret masked, wherever the
 * pipe cut the text (a chunk may end inside a secret, or inside a character), in a prompt
 * with no line end, and in a line longer than what is held back.
 */
import { describe, expect, it, vi } from 'vitest';
import { HOLD, IDLE_MS, LINE_MAX, ScrubbedStream } from '../../src/pipeline/launch-log.js';
import { SecretEchoes } from '../../src/pipeline/secrets.js';

const SECRET = 'TypedSecret-9981';

function stream(): { s: ScrubbedStream; out: () => string } {
  const echoes = new SecretEchoes();
  echoes.add(SECRET);
  const written: string[] = [];
  const s = new ScrubbedStream((t) => written.push(t), echoes);
  return { s, out: () => written.join('') };
}

describe('ScrubbedStream', () => {
  it('masks a secret cut in two by the pipe, at every cut', () => {
    const line = `password=${SECRET} reversed=${[...SECRET].reverse().join('')}\n`;
    for (let cut = 1; cut < line.length; cut++) {
      const { s, out } = stream();
      s.write(Buffer.from(line.slice(0, cut)));
      s.write(Buffer.from(line.slice(cut)));
      s.end();
      expect(out(), `cut at ${cut}`).toBe('password=••• reversed=•••\n');
    }
  });

  it('keeps a character cut in two whole', () => {
    const { s, out } = stream();
    const bytes = Buffer.from(`é ${SECRET}\n`);
    s.write(bytes.subarray(0, 1));
    s.write(bytes.subarray(1));
    s.end();
    expect(out()).toBe('é •••\n');
  });

  it('writes a prompt with no line end once the app goes quiet, masked', () => {
    vi.useFakeTimers();
    try {
      const { s, out } = stream();
      s.write(`Password was ${SECRET}`);
      expect(out()).toBe('');
      vi.advanceTimersByTime(IDLE_MS + 1);
      // The secret at the end is held back (the line may go on); the prompt is written.
      expect(out()).toBe('Password was ');
      s.end();
      expect(out()).toBe('Password was •••');
    } finally {
      vi.useRealTimers();
    }
  });

  it('masks a secret printed a character at a time with quiet spells between', () => {
    vi.useFakeTimers();
    try {
      const { s, out } = stream();
      s.write('SLOW ');
      for (const c of SECRET) {
        s.write(c);
        vi.advanceTimersByTime(IDLE_MS + 50);
      }
      // The prompt before it was written once the app went quiet; no piece of the secret.
      expect(out()).toBe('SLOW ');
      s.write(' done\n');
      s.end();
      expect(out()).toBe('SLOW ••• done\n');
    } finally {
      vi.useRealTimers();
    }
  });

  it('holds back only the end of a quiet line that may begin a secret', () => {
    vi.useFakeTimers();
    try {
      const { s, out } = stream();
      s.write('Name: Type');
      vi.advanceTimersByTime(IDLE_MS + 1);
      // "Type" may begin the secret: held back until the line goes on; the rest is written.
      expect(out()).toBe('Name: ');
      s.write('writer\n');
      expect(out()).toBe('Name: Typewriter\n');
      s.end();
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes a line longer than it holds in parts, never cutting through a secret', () => {
    // One read longer than LINE_MAX: its head is written, cut HOLD characters from its end.
    const total = LINE_MAX + 100;
    for (const back of [HOLD + 8, HOLD, HOLD - 3, 2 * HOLD + 5]) {
      const { s, out } = stream();
      const start = total - back;
      const head = 'x'.repeat(start) + SECRET;
      s.write(head + 'y'.repeat(total - head.length));
      s.write('\n');
      s.end();
      const text = out();
      expect(text, `secret ${back} from the end`).not.toContain('TypedSec');
      expect(text).not.toContain('ret-9981');
      expect(text.endsWith('y\n')).toBe(true);
    }
  });
});
