/**
 * Prompts for the common flows: each tells the agent which tools to use in which order.
 * The app argument completes from the running apps.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Pipeline } from '../pipeline/pipeline.js';
import { completeAppNames } from './candidates.js';

export function testAppText(app: string, goal: string): string {
  return [
    `Test the desktop app "${app}". Goal: ${goal}`,
    '',
    `1. ax_connect {app: "${app}"} (or ax_list_apps if it is not found) and read the summary; grep the tree file it names for the controls you need (grep -n 'AXButton' <file>).`,
    '2. Act with ax_click, ax_type, ax_set_value or ax_key_press by ref (ref: "e42") or by query ("button:Save"). Each action summary lists what changed: check it did what the goal needs.',
    '3. After each step that should change state, verify with ax_assert (or ax_get_value / ax_wait_for when the app needs time); do not trust an action alone.',
    '4. When something looks wrong, ax_screenshot and ax_get_tree show the app as it is now.',
    '5. Report each step with its expected and observed result, and whether the goal was met.',
  ].join('\n');
}

export function fillFormText(app: string, fields: string): string {
  return [
    `Fill a form in the desktop app "${app}". Fields and values: ${fields}`,
    '',
    `1. ax_connect {app: "${app}"}; grep the tree file for the form's labels and fields (AXTextField, AXComboBox, AXCheckBox).`,
    '2. For each field: ax_find {query: "<label>"} when the ref is not obvious, then ax_type (text), ax_set_value (sliders, spin buttons) or ax_click (check boxes, radio buttons, combo items).',
    '3. Read each value back with ax_get_value or ax_assert before submitting; password fields read back masked, that is expected.',
    '4. Submit (ax_click on the OK/Submit/Save button) only when every field reads back right, and check the summary for the dialog closing or an error message.',
  ].join('\n');
}

export function auditText(app: string): string {
  return [
    `Audit the accessibility of the desktop app "${app}".`,
    '',
    `1. ax_connect {app: "${app}"}, then ax_a11y_audit {app: "${app}"} for the automatic checks (missing names, unlabeled fields, focusability, contrast).`,
    '2. Walk each window (ax_list_windows, then ax_get_tree) and grep the tree file for controls without text (lines like [AXButton ...] "" ) and images without a description.',
    '3. Check keyboard access: ax_key_press {key: "Tab"} through the window and note which element has focus each time (the summary and ax_get_attributes say so).',
    '4. Open the dialogs the app offers and audit them the same way.',
    '5. Report the findings by severity, each with its ref, role and the fix.',
  ].join('\n');
}

export function registerPrompts(server: McpServer, pipeline: Pipeline): void {
  const appArg = () =>
    completable(z.string().min(1).describe('App name, pid or window title.'), (value) =>
      completeAppNames(pipeline, value ?? ''),
    );
  const user = (text: string): GetPromptResult => ({
    messages: [{ role: 'user', content: { type: 'text', text } }],
  });

  server.registerPrompt(
    'test_app',
    {
      title: 'Test an app',
      description: 'Drive an app toward a goal and verify each step.',
      argsSchema: {
        app: appArg(),
        goal: z.string().min(1).describe('What the test should achieve.'),
      },
    },
    ({ app, goal }) => user(testAppText(app, goal)),
  );

  server.registerPrompt(
    'fill_form',
    {
      title: 'Fill a form',
      description: "Fill an app's form field by field, read back, then submit.",
      argsSchema: {
        app: appArg(),
        fields: z
          .string()
          .min(1)
          .describe('The fields and their values, e.g. "Name: Ada, Age: 36".'),
      },
    },
    ({ app, fields }) => user(fillFormText(app, fields)),
  );

  server.registerPrompt(
    'audit_accessibility',
    {
      title: 'Audit accessibility',
      description: "Check an app's accessibility: names, labels, keyboard access.",
      argsSchema: { app: appArg() },
    },
    ({ app }) => user(auditText(app)),
  );
}
