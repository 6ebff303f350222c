/**
 * The MCP SDK pieces tests need beyond a session (an in-memory client, notification
 * schemas), re-exported here so that only the server, the transport, the tool glue and
 * the harness import the SDK itself (see eslint.config.js).
 */
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
export {
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
