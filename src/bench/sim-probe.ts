// The reading side of `npm run bench:sim`, kept cheap next to the simulator it measures: start one
// build's simulator in its own process, stream from it over raw sockets that only count SSE events, and
// read its Prometheus counters.

import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { parsePrometheusText } from '../engines/prometheus.js';
import { startChild } from './child.js';

const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

export interface SimProc {
  child: ChildProcess;
  url: string;
}

/** `script` (a build's bench/sim.js) in its child mode, serving the simulator with `args`. */
export async function startSim(script: string, args: string[]): Promise<SimProc> {
  const { child, match } = await startChild(
    [script, '--serve', ...args],
    /benchgate sim: .* (http:\/\/127\.0\.0\.1:\d+)/,
  );
  return { child, url: match[1]! };
}

/** A counter or gauge from the simulator's GET /metrics (NaN when absent). */
export async function metric(url: string, name: string): Promise<number> {
  const text = await new Promise<string>((resolve, reject) => {
    http
      .get(`${url}/metrics`, { agent }, (res) => {
        let t = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          t += d;
        });
        res.on('end', () => resolve(t));
      })
      .on('error', reject);
  });
  return parsePrometheusText(text).samples.find((x) => x.name === name)?.value ?? Number.NaN;
}

/**
 * One streaming completion over a raw socket (a pre-built request, no HTTP parsing, so the reading
 * side stays cheap next to the simulator); resolves with the number of SSE events seen, and pushes
 * the gaps between reads (ms) into `gaps`.
 */
export function stream(url: string, maxTokens: number, gaps: number[] | null): Promise<number> {
  const { hostname, port } = new URL(url);
  const body = JSON.stringify({ model: 'm', prompt: 'hello world', max_tokens: maxTokens, stream: true });
  const request = `POST /v1/completions HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    let events = 0;
    let last = 0;
    let endsInOneNewline = false;
    let tail = '';
    socket.on('data', (d: Buffer) => {
      const now = performance.now();
      if (gaps && last > 0) gaps.push(now - last);
      last = now;
      // an event ends at a blank line, which may be cut in two by the reads
      if (endsInOneNewline && d[0] === 10) events++;
      for (let i = d.indexOf('\n\n'); i >= 0; i = d.indexOf('\n\n', i + 2)) events++;
      endsInOneNewline = d[d.length - 1] === 10 && d[d.length - 2] !== 10;
      tail = (tail + d.subarray(-5).toString('latin1')).slice(-5);
      if (tail === '0\r\n\r\n') {
        // the last chunk of the chunked body: the response is complete
        socket.destroy();
        resolve(events);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(events));
  });
}

/** Closes the kept-alive connections the metric reads hold. */
export function closeProbeConnections(): void {
  agent.destroy();
}
