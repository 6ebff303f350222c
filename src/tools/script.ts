/**
 * ax_run_script: a script run through the platform's own accessibility scripting
 * (AppleScript/JXA on macOS). Listed in full mode only; on a platform without such a
 * facility every call is an error that says so. A client that can ask shows the person
 * the script before it runs.
 */
import { z } from 'zod';
import { defineTool } from './define.js';
import { AxError } from '../errors.js';
import { scriptQuestion } from '../elicit/questions.js';

/** How a platform id reads in a message. */
const PLATFORM_NAMES: Record<string, string> = { linux: 'Linux', darwin: 'macOS', macos: 'macOS' };

const MAX_SCRIPT_CHARS = 100_000;

export const runScript = defineTool({
  name: 'ax_run_script',
  title: 'Run a script',
  description: 'Run AppleScript/JXA on the accessibility API (macOS only).',
  kind: 'script',
  input: z.object({
    // Bounds checked by refinement: the schema in tools/list stays short.
    script: z
      .string()
      .refine((s) => s.trim() !== '' && s.length <= MAX_SCRIPT_CHARS, 'a script of 1-100000 chars')
      .describe('The script.'),
    language: z.enum(['applescript', 'jxa']).describe('Its language.'),
  }),
  async handle(args, { pipeline, call }) {
    const desktop = await pipeline.desktop();
    const support = desktop.scripting;
    if (!support?.languages.includes(args.language) || !desktop.runScript) {
      const platform = PLATFORM_NAMES[desktop.platform] ?? desktop.platform;
      const reason =
        support && support.languages.length > 0
          ? `${args.language} is not supported (it runs ${support.languages.join(', ')})`
          : (support?.reason ?? 'there is no native accessibility scripting facility');
      throw new AxError(
        'unsupported',
        // The message says what to do instead: no separate hint to repeat it.
        `unavailable on ${platform}: ${reason}; use ax_workflow or the ax_* tools`,
      );
    }
    // A script may do anything: the person sees it and says yes first, when they can be asked.
    if (call.asking?.canAsk) await call.asking.ask(scriptQuestion(args.language, args.script));
    const output = await desktop.runScript(args.language, args.script);
    const lines = output.split('\n');
    return pipeline.report(call, {
      did: `Ran a ${args.language} script (${lines.length} output lines)`,
      listing: { title: 'script output', lines },
    });
  },
});

export const scriptTools = [runScript];
