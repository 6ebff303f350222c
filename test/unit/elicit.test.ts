import { describe, expect, it } from 'vitest';
import type { Element } from '../../src/model/element.js';
import {
  Asking,
  DestructiveWords,
  confirmDestructive,
  destructiveQuestion,
  elementSubject,
  launchQuestion,
  passwordTypingQuestion,
  pickAppQuestion,
  pickElementQuestion,
  withAsked,
  type FormRequest,
} from '../../src/elicit/index.js';
import { AxError } from '../../src/errors.js';

function el(over: Partial<Element>): Element {
  return {
    id: '',
    parent: -1,
    depth: 0,
    role: 'AXButton',
    nativeRole: 'push button',
    name: '',
    flags: [],
    actions: [],
    childCount: 0,
    ...over,
  };
}

/** An app with a window "Files" holding a button, a password field with a value, a label. */
const snapshot = {
  app: 'Nautilus',
  pid: 4242,
  elements: [
    el({ role: 'AXWindow', nativeRole: 'frame', name: 'Files', depth: 0 }),
    el({ name: 'Delete All', parent: 0, depth: 1, frame: { x: 10.4, y: 20.6, w: 80, h: 30 } }),
    el({
      role: 'AXTextField',
      nativeRole: 'password text',
      name: 'Password',
      value: 'hunter2-secret',
      parent: 0,
      depth: 1,
      flags: ['secure'],
    }),
    el({ name: '', description: 'Empties the trash', parent: 0, depth: 1 }),
  ],
};

describe('the destructive word matcher', () => {
  const words = new DestructiveWords();

  it('finds a listed word or phrase as whole words, in any case', () => {
    expect(words.match('Delete')).toBe('delete');
    expect(words.match('DELETE ALL')).toBe('delete');
    expect(words.match('Remove from list')).toBe('remove');
    expect(words.match('Close without Saving')).toBe('close without saving');
    expect(words.match('Empty  Trash')).toBe('empty trash');
    expect(words.match('Format disk…')).toBe('format');
    expect(words.match('Erase')).toBe('erase');
  });

  it('reads a typographic apostrophe as a plain one', () => {
    expect(words.match('Don’t Save')).toBe("don't save");
    expect(words.match("Don't save")).toBe("don't save");
  });

  it('does not count a word inside another word', () => {
    expect(words.match('Undelete')).toBeUndefined();
    expect(words.match('Deleted items')).toBeUndefined();
    expect(words.match('Formatting')).toBeUndefined();
    expect(words.match('Removed')).toBeUndefined();
    expect(words.match('Save')).toBeUndefined();
    expect(words.match('Keep')).toBeUndefined();
  });

  it('looks at every text given (name, then description), and skips empty ones', () => {
    expect(words.match(undefined, '', 'Discard changes')).toBe('discard');
    expect(words.match(undefined)).toBeUndefined();
  });

  it('takes more words from the settings, as whole words too', () => {
    const more = new DestructiveWords(['Shred', 'factory reset']);
    expect(more.match('Shred now')).toBe('shred');
    expect(more.match('Factory  Reset')).toBe('factory reset');
    expect(more.match('Shredder')).toBeUndefined();
    expect(more.match('Delete')).toBe('delete');
  });

  it('takes a word with regex characters literally', () => {
    const more = new DestructiveWords(['rm -rf (all)']);
    expect(more.match('run rm -rf (all) now')).toBe('rm -rf (all)');
    expect(more.match('rm -rf all')).toBeUndefined();
  });
});

describe('the question builder', () => {
  it('names an element by role, text, window and app with its pid', () => {
    const s = elementSubject(snapshot, 1, 'e2');
    expect(s).toEqual({
      role: 'push button',
      text: 'Delete All',
      at: { x: 10, y: 21 },
      ref: 'e2',
      window: 'Files',
      app: 'Nautilus',
      pid: 4242,
    });
    const q = destructiveQuestion('click', s, 'delete');
    expect(q.message).toBe(
      'The agent wants to click the push button "Delete All" in the window "Files" of Nautilus (pid 4242). Its name says "delete": what it does may not be undone. Go ahead?',
    );
    expect(q.requestedSchema.required).toEqual(['confirm']);
  });

  it('never puts a password field value in a question', () => {
    const s = elementSubject(snapshot, 2, 'e3');
    expect(s.text).toBe('Password');
    const q = passwordTypingQuestion('type', s);
    expect(JSON.stringify(q)).not.toContain('hunter2');
    expect(q.message).toContain('the password text "Password" in the window "Files" of Nautilus');
  });

  it('names an element with no name by its description', () => {
    expect(elementSubject(snapshot, 3).text).toBe('Empties the trash');
  });

  it('offers each app by name, pid and window title, and parses only an offered pid', () => {
    const q = pickAppQuestion('gedit', [
      { name: 'gedit', pid: 100, windows: ['notes.txt - gedit', 'todo - gedit'] },
      { name: 'gedit', pid: 200, windows: [] },
    ]);
    const field = q.requestedSchema.properties.choice;
    expect(field.type).toBe('string');
    expect(field.type === 'string' && field.oneOf).toEqual([
      { const: '100', title: 'gedit (pid 100), window "notes.txt - gedit" +1 more' },
      { const: '200', title: 'gedit (pid 200), no window' },
    ]);
    expect(q.parse({ choice: '200' })).toBe(200);
    expect(q.parse({ choice: '300' })).toBeUndefined();
    expect(q.parse({ choice: 100 })).toBeUndefined();
    expect(q.parse(undefined)).toBeUndefined();
  });

  it('offers elements by ref with role, text and position', () => {
    const a = elementSubject(snapshot, 1, 'e2');
    const b = { ...a, ref: 'e9', at: { x: 200, y: 21 } };
    const q = pickElementQuestion('click', 'Delete', [a, b]);
    const field = q.requestedSchema.properties.choice;
    expect(field.type === 'string' && field.oneOf).toEqual([
      { const: 'e2', title: 'the push button "Delete All" at 10,21' },
      { const: 'e9', title: 'the push button "Delete All" at 200,21' },
    ]);
    expect(q.message).toContain('in the window "Files" of Nautilus (pid 4242)');
    expect(q.parse({ choice: 'e9' })).toBe('e9');
    expect(q.parse({ choice: 'e1' })).toBeUndefined();
  });

  it('names a launched program but never its arguments', () => {
    const q = launchQuestion('/usr/bin/curl', 3);
    expect(q.message).toContain('"/usr/bin/curl" with 3 arguments');
  });

  it('a confirmation counts only an explicit true', () => {
    const q = destructiveQuestion('click', elementSubject(snapshot, 1), 'delete');
    expect(q.parse({ confirm: true })).toBe(true);
    expect(q.parse({ confirm: false })).toBeUndefined();
    expect(q.parse({ confirm: 'yes' })).toBeUndefined();
  });
});

describe('asking', () => {
  const question = () => destructiveQuestion('click', elementSubject(snapshot, 1, 'e2'), 'delete');

  it('masks known secrets in what it sends, and asks the same question once per call', async () => {
    const sent: FormRequest[] = [];
    const asking = new Asking(
      async (r) => {
        sent.push(r);
        return { action: 'accept', content: { confirm: true } };
      },
      (t) => t.replaceAll('Files', '****'),
    );
    await asking.ask(question());
    await asking.ask(question());
    expect(sent).toHaveLength(1);
    expect(sent[0].message).toContain('"****"');
    expect(asking.entries).toEqual([
      expect.objectContaining({ question: 'destructive', answer: 'accept', outcome: 'went_ahead' }),
    ]);
  });

  it('a decline or cancel throws `declined` and is recorded as stopped', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const asking = new Asking(async () => ({ action }));
      const err = await asking.ask(question()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AxError);
      expect((err as AxError).code).toBe('declined');
      expect((err as AxError).message).toContain('nothing was done');
      expect(asking.entries[0]).toMatchObject({ answer: action, outcome: 'stopped' });
    }
  });

  it('a client that fails to answer stops the call', async () => {
    const asking = new Asking(async () => {
      throw new Error('timed out');
    });
    await expect(asking.ask(question())).rejects.toMatchObject({ code: 'declined' });
  });

  it('without a client that can ask: ask goes ahead and says so, always refuses, never is silent', async () => {
    const ask = new Asking();
    await confirmDestructive(ask, 'ask', question());
    expect(ask.entries[0]).toMatchObject({ answer: 'not_asked', outcome: 'went_ahead' });
    const always = new Asking();
    await expect(confirmDestructive(always, 'always', question())).rejects.toMatchObject({
      code: 'confirmation_required',
    });
    const never = new Asking();
    await confirmDestructive(never, 'never', question());
    expect(never.entries).toEqual([]);
  });

  it('puts an asked: line after the first line of a summary', () => {
    const asking = new Asking();
    asking.notAsked(
      'destructive',
      'click the push button "Delete All"',
      'went_ahead',
      'the client takes no questions',
    );
    const r = withAsked(
      { text: 'status: success\ndid: Clicked', structured: {} as Record<string, unknown> },
      asking.entries,
    );
    expect(r.text.split('\n')[1]).toBe(
      'asked: destructive click the push button "Delete All": not asked (the client takes no questions), went ahead',
    );
    expect(r.structured.asked).toEqual(asking.entries);
    expect(withAsked({ text: 'a', structured: {} }, [])).toEqual({ text: 'a', structured: {} });
  });
});
