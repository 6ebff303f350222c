/**
 * Resource and subscription failures as MCP errors: the same actionable message (what
 * went wrong and what to do) a tool's error result carries.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AxError, describeError } from '../errors.js';
import { toUserError } from '../pipeline/platform-errors.js';

export function toMcpError(err: unknown): McpError {
  if (err instanceof McpError) return err;
  const user = toUserError(err);
  const { message, code } = describeError(user);
  // An argument the caller can fix (an app that is not running, a stale ref) is theirs.
  const kind = user instanceof AxError ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new McpError(kind, message, code ? { error_code: code } : undefined);
}

export function invalid(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}
