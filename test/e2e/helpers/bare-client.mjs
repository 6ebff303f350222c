// Stands for an MCP client started from a desktop launcher: this process runs in the desktop
// session (its own environment names the display and the bus) and starts `axpage serve`
// with only what such clients pass on (HOME, PATH, SHELL, TERM, USER, LOGNAME), plus the
// variables a client's config names in BARE_CLIENT_KEEP. Usage: BARE_CLIENT_CLI=<axpage's
// cli.js> node bare-client.mjs serve [args…]
import { spawn } from 'node:child_process';

const cli = process.env.BARE_CLIENT_CLI;
const args = process.argv.slice(2);
const keep = ['HOME', 'PATH', 'SHELL', 'TERM', 'USER', 'LOGNAME'];
keep.push(...(process.env.BARE_CLIENT_KEEP ?? '').split(',').filter(Boolean));
const env = Object.fromEntries(keep.filter((k) => process.env[k]).map((k) => [k, process.env[k]]));
const server = spawn(process.execPath, [cli, ...args], { env, stdio: 'inherit' });
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(signal, () => server.kill(signal));
}
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
