/** Asking the person behind the client (MCP elicitation): see asking.ts, questions.ts, confirm.ts. */
export * from './asking.js';
export * from './confirm.js';
export * from './destructive.js';
export * from './questions.js';
