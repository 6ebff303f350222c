export {
  renderTreeBody,
  renderTreeFile,
  windowTitle,
  type ActionFacts,
  type TreeBodyInput,
  type TreeFileInput,
} from './file.js';
export {
  TREE_TEXT_CHARS,
  elementTexts,
  formatElementHead,
  formatElementLine,
  isSecure,
  primaryText,
  roleLabel,
  type ElementTexts,
  type LineOptions,
} from './line.js';
export {
  ELLIPSIS,
  SECURE_MASK,
  charLength,
  clipChange,
  clipMiddle,
  clipText,
  escapeText,
  shellQuote,
} from './text.js';
