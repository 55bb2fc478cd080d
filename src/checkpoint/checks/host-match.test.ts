import { describe, expect, it } from 'vitest';
import { LocalHost } from '../../hosts/local-host.js';
import { resolvePlan } from '../../plan/load.js';
import { runCheckpoint } from '../run.js';

// 192.0.2.1 is TEST-NET-1 (RFC 5737): never this machine, never answering.
const REMOTE_URL = 'http://192.0.2.1:30000';

describe('checks never read another machine than the one serving the target', () => {
  it('with host local and a remote URL, reads no local GPUs and fails the asked-for gpus expectation', async () => {
    const plan = resolvePlan(
      {
        target: { url: REMOTE_URL, timeouts: { connect_s: 1 } },
        gpus: { count: 1 },
        expect: { smoke: false },
      },
      'test',
    );
    const host = new LocalHost();
    const { report } = await runCheckpoint({ plan, host });
    const ids = report.findings.map((f) => f.id);
    expect(ids.some((id) => id.startsWith('gpu'))).toBe(false);
    const f = report.findings.find((x) => x.id === 'host');
    expect(f?.status).toBe('fail');
    expect(f?.required).toBe(true);
    expect(f?.found).toContain(`${REMOTE_URL} is not on this machine but host is "local"`);
    expect(f?.found).toContain('gpus cannot be judged');
    expect(report.ok).toBe(false);
  });

  it('with host local and a remote URL but nothing host-bound asked for, warns without gating', async () => {
    const plan = resolvePlan(
      { target: { url: REMOTE_URL, timeouts: { connect_s: 1 } }, expect: { smoke: false } },
      'test',
    );
    const { report } = await runCheckpoint({ plan, host: new LocalHost() });
    const f = report.findings.find((x) => x.id === 'host');
    expect(f?.status).toBe('warn');
    expect(f?.required).toBe(false);
  });

  it('with a loopback URL on host local, runs the host checks as before (no host finding)', async () => {
    const plan = resolvePlan(
      { target: { url: 'http://127.0.0.1:9', timeouts: { connect_s: 1 } }, expect: { smoke: false } },
      'test',
    );
    const { report } = await runCheckpoint({ plan, host: new LocalHost() });
    expect(report.findings.some((x) => x.id === 'host')).toBe(false);
  });
});
