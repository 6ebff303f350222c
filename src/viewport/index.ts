export { findBlockingDialog, isPopupWindow, mainWindow, popupAround } from './dialog.js';
export { captureRect, popupFrames, secureFrames, union, type CaptureRequest } from './region.js';
export { clipForReport, hasArea, intersect } from './geometry.js';
export { reachableFrame } from './reachable.js';
export {
  SURFACE_ROLES,
  VIEWPORT_ROLES,
  computeVisibility,
  isViewportLike,
  type Visibility,
  type VisibilityOptions,
} from './visibility.js';
