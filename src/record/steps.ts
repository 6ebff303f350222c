/**
 * What a person did, turned into the steps an agent replays with ax_workflow. Pure: the
 * recorder (recorder.ts) hands in the events it saw, each already resolved to the element
 * it was about (by the query the rest of axpage resolves), and gets back the steps.
 *
 * The rules, in the order the events came:
 * - a click on an element is an ax_click on it; a click on a field the person then types
 *   into is left to the ax_type (ax_type gives the field its focus itself);
 * - text going into or out of one field, however many events, is one ax_type that sets
 *   the text the field ended with (clear_first); a password field's text is never known
 *   here: its step carries a placeholder for the caller to fill in;
 * - a check box (or radio button, switch, tab...) changing without a click seen on it is
 *   a click on it: that is how a person changes one;
 * - a key that is no typing (Return, Escape, Tab, ctrl+s) is an ax_key_press, unless
 *   more text came into the field being typed into after it (Return in a text area,
 *   BackSpace): then the ax_type's text has its effect;
 * - a window or dialog opening is an ax_wait_for it, after the step that opened it; one
 *   closing is a wait for it to go;
 * - when the session shows no input (`inferClicks`), a button the focus came to just
 *   before a window opened or closed is taken as clicked: the toolkits give a button the
 *   focus when it is pressed.
 */

/** An element an event was about, as the recorder resolved it in a walk of the app. */
export interface SeenElement {
  /** The platform's identity of the element (to tell events on one element apart). */
  id: string;
  /** A query that resolves back to this element (nth only when needed); none: not named. */
  query?: string;
  /** A button-like control: pressing it is what a click on it does. */
  button: boolean;
  /** A control whose state a click sets (check box, radio button, switch, tab). */
  toggle: boolean;
  /** One of a group of which one is on: going off is another going on, no click of its own. */
  radio: boolean;
  /** It takes text. */
  field: boolean;
  /** A password field: its text is never read. */
  secret: boolean;
  /** What the person would call it ("Password"), for the placeholder of a secret. */
  label: string;
  /** Its text as the walk after the event read it (never a secret's). */
  value?: string;
}

export type RecordedEvent = (
  | { kind: 'click'; element?: SeenElement; x: number; y: number }
  | { kind: 'key'; key: string; typing: boolean }
  | { kind: 'focus'; element: SeenElement }
  | { kind: 'text'; element: SeenElement }
  | { kind: 'state'; element: SeenElement; flag: string; on: boolean }
  | { kind: 'window'; element?: SeenElement; opened: boolean }
) & {
  /** When it came, in ms (any clock, the same for every event). */
  at: number;
  /** The tree file of the walk that resolved it. */
  pair?: string;
};

export interface WorkflowStep {
  id: string;
  tool: string;
  args: Record<string, unknown>;
}

/** A password a replay has to supply: the step and the placeholder to replace. */
export interface SecretSlot {
  step: string;
  field: string;
  placeholder: string;
}

export interface MergeResult {
  steps: WorkflowStep[];
  secrets: SecretSlot[];
  /** Clicks at a point where no named element was: left out, counted. */
  unnamed: number;
  /** Per step: the tree file of the walk after its last event. */
  pairs: Array<string | undefined>;
}

export interface MergeOptions {
  /** The app every step names. */
  app: string;
  /** The session showed no input events: infer clicks on buttons from focus and windows. */
  inferClicks: boolean;
}

/** How long after a click a state change of the same element is that click's effect. */
export const CLICK_EFFECT_MS = 2000;
/** How long a window may take to open after the button that opened it had the focus. */
export const FOCUS_TO_WINDOW_MS = 5000;
/** How long a replayed wait for a window gives it. */
export const WAIT_TIMEOUT_MS = 10_000;

/** The text a replay types into a password field unless the caller puts the secret there. */
export function secretPlaceholder(label: string): string {
  return `<secret for ${label || 'the password field'}>`;
}

/** A state a click sets: checked (check boxes, radio buttons, switches), selected (tabs, items), expanded. */
const CLICKED_STATES = new Set(['checked', 'selected', 'expanded', 'collapsed']);

export function mergeEvents(events: readonly RecordedEvent[], opts: MergeOptions): MergeResult {
  const steps: Array<Omit<WorkflowStep, 'id'> & { element?: string; pair?: string }> = [];
  let pair: string | undefined;
  const secrets: Array<Omit<SecretSlot, 'step'> & { index: number }> = [];
  let unnamed = 0;
  let typing: { element: SeenElement; index: number } | undefined;
  let lastClick: { id: string; at: number } | undefined;
  let focusedButton: { element: SeenElement; at: number } | undefined;
  const app = opts.app;

  const push = (tool: string, args: Record<string, unknown>, element?: string): number => {
    steps.push({ tool, args: { app, ...args }, ...(element ? { element } : {}), pair });
    return steps.length - 1;
  };
  const click = (element: SeenElement, at: number): void => {
    typing = undefined;
    push('ax_click', { query: element.query }, element.id);
    lastClick = { id: element.id, at };
  };

  let heldKeys: string[] = [];
  const flushKeys = (): void => {
    if (heldKeys.length === 0) return;
    typing = undefined;
    for (const key of heldKeys) push('ax_key_press', { key });
    heldKeys = [];
  };

  for (const ev of events) {
    pair = ev.pair;
    // Held keys followed by more text in the field being typed into were typing.
    if (heldKeys.length > 0) {
      if (ev.kind === 'text' && typing?.element.id === ev.element.id) heldKeys = [];
      else if (ev.kind !== 'focus' && ev.kind !== 'key') flushKeys();
    }
    switch (ev.kind) {
      case 'click': {
        focusedButton = undefined;
        if (!ev.element?.query) {
          unnamed++;
          break;
        }
        click(ev.element, ev.at);
        break;
      }
      case 'key': {
        if (ev.typing) break;
        // While typing into a field, a key that edits its text (Return in a text area,
        // BackSpace) is part of the typing: held until the next event says which it was.
        if (typing) heldKeys.push(ev.key);
        else push('ax_key_press', { key: ev.key });
        break;
      }
      case 'focus': {
        focusedButton = ev.element.button ? { element: ev.element, at: ev.at } : undefined;
        break;
      }
      case 'text': {
        const el = ev.element;
        if (!el.query) break;
        if (typing?.element.id === el.id) {
          typing.element = el;
          const step = steps[typing.index];
          if (!el.secret) step.args.text = el.value ?? '';
          step.pair = pair;
          break;
        }
        // A click that only put the focus into this field is the ax_type's to do.
        const previous = steps.at(-1);
        if (previous?.tool === 'ax_click' && previous.element === el.id) steps.pop();
        const placeholder = el.secret ? secretPlaceholder(el.label) : undefined;
        const index = push(
          'ax_type',
          { query: el.query, text: placeholder ?? el.value ?? '', clear_first: true },
          el.id,
        );
        if (placeholder) secrets.push({ index, field: el.label, placeholder });
        typing = { element: el, index };
        break;
      }
      case 'state': {
        const el = ev.element;
        if (!CLICKED_STATES.has(ev.flag) || !el.toggle || !el.query) break;
        // A radio button going off is another one going on; a tab losing selection too.
        if (!ev.on && (ev.flag === 'selected' || (ev.flag === 'checked' && el.radio))) break;
        if (lastClick && lastClick.id === el.id && ev.at - lastClick.at <= CLICK_EFFECT_MS) break;
        click(el, ev.at);
        focusedButton = undefined;
        break;
      }
      case 'window': {
        if (opts.inferClicks && focusedButton && ev.at - focusedButton.at <= FOCUS_TO_WINDOW_MS) {
          const b = focusedButton.element;
          const clicked =
            lastClick && lastClick.id === b.id && ev.at - lastClick.at <= CLICK_EFFECT_MS;
          if (b.query && !clicked) click(b, ev.at);
        }
        focusedButton = undefined;
        typing = undefined;
        if (!ev.element?.query) break;
        push('ax_wait_for', {
          query: ev.element.query,
          ...(ev.opened ? {} : { state: 'disappear' }),
          timeout_ms: WAIT_TIMEOUT_MS,
        });
        break;
      }
    }
  }

  flushKeys();
  const named = steps.map((s, i) => ({ id: `s${i + 1}`, tool: s.tool, args: s.args }));
  return {
    steps: named,
    secrets: secrets.map((s) => ({
      step: named[s.index].id,
      field: s.field,
      placeholder: s.placeholder,
    })),
    unnamed,
    pairs: steps.map((s) => s.pair),
  };
}
