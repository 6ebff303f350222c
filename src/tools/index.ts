import { actTools } from './act.js';
import { assertTools } from './assert.js';
import { auditTools } from './audit.js';
import { connectTools } from './connect.js';
import { findTools } from './find.js';
import { launchTools } from './launch.js';
import { observeTools } from './observe.js';
import { sessionTools } from './session.js';
import { scriptTools } from './script.js';
import { visualTools } from './visual.js';
import { undoTools } from './undo.js';
import { workflowTools } from './workflow.js';

/** Every tool the server registers, by family. */
export const allTools = [
  ...connectTools,
  ...observeTools,
  ...findTools,
  ...actTools,
  ...assertTools,
  ...launchTools,
  ...sessionTools,
  ...auditTools,
  ...scriptTools,
  ...visualTools,
  ...undoTools,
  ...workflowTools,
];
