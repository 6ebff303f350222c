export { findBlockingDialog, mainWindow } from './dialog.js';
export { clipForReport, hasArea, intersect } from './geometry.js';
export {
  SURFACE_ROLES,
  VIEWPORT_ROLES,
  computeVisibility,
  isViewportLike,
  type Visibility,
  type VisibilityOptions,
} from './visibility.js';
