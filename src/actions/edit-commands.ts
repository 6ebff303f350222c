/**
 * The edit commands an app names its buttons and menu items by: a press on Paste puts the
 * clipboard into the app's focused field, one on Copy or Cut takes its selection.
 */
import type { Element } from '../model/element.js';

/** Roles whose press runs an edit command named on them (a menu's Paste, a toolbar's Copy). */
const COMMAND_ROLES: ReadonlySet<string> = new Set(['AXMenuItem', 'AXButton']);
/**
 * Names of the Paste command: English and the common translations, and the names of
 * commands that insert the clipboard otherwise ("Insert Clipboard", a "Clipboard" button).
 */
const PASTE_NAME =
  /^(paste|insert clipboard|clipboard|einfügen|coller|pegar|incolla|plakken|klistra|wklej|вставить|vložit|yapıştır)\b|^(貼り付け|粘贴|貼上|붙여넣기)/iu;
/** Names of the Copy and Cut commands. */
const COPY_NAME =
  /^(copy|cut|kopieren|ausschneiden|copier|couper|copiar|cortar|copia|taglia|kopiëren|knippen|kopiera|klipp|kopiuj|wytnij|копировать|вырезать|kopírovat|vyjmout|kopyala|kes)\b|^(コピー|切り取り|复制|剪切|複製|剪下|복사|잘라내기)/iu;

/** The edit command a press on `el` runs, by its role and name ("_Paste", "Paste Special…"). */
export function editCommand(el: Element | undefined): 'paste' | 'copy' | undefined {
  if (!el || !COMMAND_ROLES.has(el.role)) return undefined;
  const name = el.name.replace(/_/g, '').trim();
  if (PASTE_NAME.test(name)) return 'paste';
  if (COPY_NAME.test(name)) return 'copy';
  return undefined;
}
