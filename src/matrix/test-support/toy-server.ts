// A tiny real HTTP server script for matrix tests of launch/wait/tear-down edge cases the simulator
// does not have (ignoring SIGTERM, forking a child, flapping health). Written to a temp dir and run with node.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const SCRIPT = `
const http = require('node:http');
const { spawn } = require('node:child_process');
const mode = new Set((process.env.TOY_MODE || '').split(',').filter(Boolean));
const port = Number(process.argv[2]);
const readyAfterMs = Number(process.env.TOY_READY_MS || 0);
const start = Date.now();
let polls = 0;
if (mode.has('ignore-term')) process.on('SIGTERM', () => console.log('toy: ignoring SIGTERM'));
else process.on('SIGTERM', () => { console.log('toy: SIGTERM, bye'); process.exit(0); });
if (mode.has('child')) spawn(process.execPath, ['-e', 'process.on("SIGTERM",()=>{});setInterval(()=>{},1000)', 'toy-child-marker'], { stdio: 'ignore' });
const server = http.createServer((req, res) => {
  if (req.url === '/health') {
    polls += 1;
    let ok = Date.now() - start >= readyAfterMs;
    if (mode.has('flap')) ok = polls % 2 === 0;
    if (mode.has('never-ready')) ok = false;
    res.writeHead(ok ? 200 : 503); res.end(ok ? 'ok' : 'loading');
    return;
  }
  res.writeHead(404); res.end();
});
server.listen(port, '127.0.0.1', () => {
  console.log('toy: listening on http://127.0.0.1:' + server.address().port);
  if (mode.has('crash-log')) setTimeout(() => { console.log('Traceback (most recent call last):'); console.log('RuntimeError: CUDA error: out of memory'); }, 100);
  if (mode.has('exit')) setTimeout(() => process.exit(3), 100);
});
setInterval(() => console.log('toy: tick'), 500);
`;

/** Writes the toy server script into `dir` and returns its path; run it as `node <path> <port>`. */
export async function writeToyServer(dir: string): Promise<string> {
  const path = join(dir, 'toy-server.cjs');
  await writeFile(path, SCRIPT);
  return path;
}
