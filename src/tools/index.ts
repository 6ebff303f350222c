import { actTools } from './act.js';
import { assertTools } from './assert.js';
import { connectTools } from './connect.js';
import { findTools } from './find.js';
import { observeTools } from './observe.js';
import { undoTools } from './undo.js';
import { workflowTools } from './workflow.js';

/** Every tool the server registers, by family. */
export const allTools = [
  ...connectTools,
  ...observeTools,
  ...findTools,
  ...actTools,
  ...assertTools,
  ...undoTools,
  ...workflowTools,
];
