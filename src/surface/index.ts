/**
 * The MCP surface besides tools: resources and resource templates with completions,
 * subscriptions driven by accessibility events, and prompts. One call wires it all.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import { registerPrompts } from './prompts.js';
import { registerRecording } from './recording.js';
import { artifactDirOf, registerResources, type ToolRunner } from './resources.js';
import { Subscriptions } from './subscriptions.js';

export function registerSurface(
  server: McpServer,
  pipeline: Pipeline,
  run: ToolRunner,
): Subscriptions {
  registerResources(server, pipeline, run);
  registerRecording(server, pipeline, run);
  registerPrompts(server, pipeline);
  const subscriptions = new Subscriptions(pipeline, artifactDirOf(pipeline), (uri) => {
    server.server.sendResourceUpdated({ uri }).catch(() => undefined);
  });
  // The resource list itself is fixed (apps are reached through templates); the SDK
  // declares listChanged for it regardless.
  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    await subscriptions.subscribe(request.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    await subscriptions.unsubscribe(request.params.uri);
    return {};
  });
  // Closing the session (the client went, or the server closed) ends every watch.
  const previous = server.server.onclose;
  server.server.onclose = () => {
    previous?.();
    void subscriptions.closeAll();
  };
  return subscriptions;
}
