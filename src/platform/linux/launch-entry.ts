/**
 * Desktop entries (freedesktop Desktop Entry Specification 1.5), as far as starting an
 * app needs: the [Desktop Entry] group's keys and the Exec line turned into an argv.
 * Pure: text in, data out; finding the files is launch-lookup.ts.
 */

export interface DesktopEntry {
  type: string;
  /** The untranslated Name. */
  name: string;
  exec?: string;
  tryExec?: string;
  path?: string;
  icon?: string;
  startupWMClass?: string;
  hidden: boolean;
  noDisplay: boolean;
  /** The desktops the entry is for only, and those it is not for (empty: no such key). */
  onlyShowIn: string[];
  notShowIn: string[];
}

/**
 * The [Desktop Entry] group of a desktop file; undefined when the file has none. Other
 * groups (actions) and translated keys (`Name[de]`) are ignored: what runs is the same.
 */
export function parseDesktopEntry(text: string): DesktopEntry | undefined {
  const keys = new Map<string, string>();
  let inMain = false;
  let seenMain = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('[')) {
      inMain = line === '[Desktop Entry]';
      seenMain ||= inMain;
      continue;
    }
    if (!inMain) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    // The first occurrence wins; a later duplicate is a broken file, not an override.
    if (!keys.has(key)) keys.set(key, unescapeValue(line.slice(eq + 1).trim()));
  }
  if (!seenMain) return undefined;
  const bool = (k: string) => keys.get(k)?.toLowerCase() === 'true';
  return {
    type: keys.get('Type') ?? '',
    name: keys.get('Name') ?? '',
    exec: keys.get('Exec'),
    tryExec: keys.get('TryExec'),
    path: keys.get('Path') || undefined,
    icon: keys.get('Icon') || undefined,
    startupWMClass: keys.get('StartupWMClass') || undefined,
    hidden: bool('Hidden'),
    noDisplay: bool('NoDisplay'),
    onlyShowIn: list('OnlyShowIn'),
    notShowIn: list('NotShowIn'),
  };
  function list(k: string): string[] {
    return (keys.get(k) ?? '').split(';').filter((s) => s !== '');
  }
}

/**
 * Why a menu would not show the entry to a person on these desktops (XDG_CURRENT_DESKTOP's
 * names), or undefined when it would. Entries menus hide are helpers other programs start
 * (a window manager, a URL handler, a wallet daemon), not apps a person picks; an entry
 * for some desktops only is hidden where no desktop is named.
 */
export function notInMenus(entry: DesktopEntry, desktops: string[]): string | undefined {
  if (entry.hidden) return 'its desktop file says Hidden=true';
  if (entry.noDisplay) return 'its desktop file says NoDisplay=true';
  const here = desktops.length > 0 ? desktops.join(':') : 'no desktop named';
  if (entry.onlyShowIn.length > 0 && !entry.onlyShowIn.some((d) => desktops.includes(d))) {
    return `its desktop file says OnlyShowIn=${entry.onlyShowIn.join(';')}; (this session: ${here})`;
  }
  const not = entry.notShowIn.find((d) => desktops.includes(d));
  if (not !== undefined) return `its desktop file says NotShowIn=${entry.notShowIn.join(';')};`;
  return undefined;
}

/** The spec's escapes of string values: \s \n \t \r \\ (others are kept as they are). */
function unescapeValue(v: string): string {
  return v.replace(/\\([sntr\\])/g, (_, c: string) =>
    c === 's' ? ' ' : c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '\r' : '\\',
  );
}

export class ExecError extends Error {
  override name = 'ExecError';
}

/** What the field codes of an Exec line expand to when an app is started with no files. */
export interface ExecContext {
  /** The entry's Name (for %c). */
  name: string;
  /** The entry's Icon (for %i: `--icon <icon>`). */
  icon?: string;
  /** The desktop file's path (for %k). */
  file?: string;
}

/**
 * The argv of an Exec line, per the spec: arguments split on spaces, double-quoted ones
 * unescaped (\" \` \$ \\), then field codes expanded. We start apps with no files or URLs,
 * so %f %u %F %U vanish (a code alone in its argument removes the argument); %i becomes
 * two arguments, %c the name, %k the file; %% a literal %. Deprecated codes (%d %D %n %N
 * %v %m) are removed; any other code makes the line invalid.
 */
export function execArgv(exec: string, ctx: ExecContext): string[] {
  const out: string[] = [];
  for (const word of splitExec(exec)) {
    if (!word.quoted && (word.text === '%i' || word.text === '%F' || word.text === '%U')) {
      if (word.text === '%i' && ctx.icon) out.push('--icon', ctx.icon);
      continue;
    }
    if (!word.quoted && /^%[fudDnNvm]$/.test(word.text)) continue;
    out.push(expandCodes(word.text, ctx));
  }
  if (out.length === 0) throw new ExecError(`Exec line "${exec}" names no program`);
  return out;
}

function expandCodes(text: string, ctx: ExecContext): string {
  return text.replace(/%(.?)/g, (_, c: string) => {
    switch (c) {
      case '%':
        return '%';
      case 'c':
        return ctx.name;
      case 'k':
        return ctx.file ?? '';
      case 'f':
      case 'u':
      case 'd':
      case 'D':
      case 'n':
      case 'N':
      case 'v':
      case 'm':
        return '';
      default:
        throw new ExecError(
          c === ''
            ? 'Exec line ends in a lone %'
            : `Exec line has %${c}, which is not a field code here (files and URLs go alone in an argument)`,
        );
    }
  });
}

/**
 * Words of an Exec line: separated by spaces; a double-quoted word keeps its spaces and
 * unescapes \" \` \$ \\ inside. An unterminated quote is an error.
 */
function splitExec(exec: string): Array<{ text: string; quoted: boolean }> {
  const words: Array<{ text: string; quoted: boolean }> = [];
  let i = 0;
  while (i < exec.length) {
    while (exec[i] === ' ' || exec[i] === '\t') i++;
    if (i >= exec.length) break;
    let text = '';
    let quoted = false;
    while (i < exec.length && exec[i] !== ' ' && exec[i] !== '\t') {
      if (exec[i] === '"') {
        quoted = true;
        i++;
        while (i < exec.length && exec[i] !== '"') {
          if (exec[i] === '\\' && i + 1 < exec.length && '"`$\\'.includes(exec[i + 1])) i++;
          text += exec[i++];
        }
        if (i >= exec.length) throw new ExecError(`Exec line "${exec}" has an unclosed quote`);
        i++;
      } else {
        text += exec[i++];
      }
    }
    words.push({ text, quoted });
  }
  return words;
}
