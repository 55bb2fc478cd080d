import { describe, expect, it } from 'vitest';
import { wantsColor } from '../core/color.js';
import type { CheckpointReport } from './finding.js';
import { renderJson } from './render-json.js';
import { renderMarkdown } from './render-markdown.js';
import { renderChecklist } from './render-text.js';

const report: CheckpointReport = {
  ok: false,
  checkedAt: '2026-01-01T00:00:00.000Z',
  findings: [
    {
      id: 'reachable',
      title: 'Target is reachable',
      status: 'pass',
      required: true,
      found: 'HTTP answered',
      evidence: [],
    },
    {
      id: 'tool.0.flags',
      title: "Tool accepts the run's flags: /tmp/b.py",
      status: 'fail',
      required: true,
      expected: 'accepts --num-requests',
      found: 'not accepted: --num-requests',
      evidence: [{ source: 'command', where: 'python3 /tmp/b.py --help', excerpt: 'usage: b.py [-h] | x' }],
      hint: 'Update the tool.',
    },
    {
      id: 'process',
      title: 'Server process found',
      status: 'warn',
      required: false,
      found: 'none visible',
      evidence: [],
    },
    { id: 'gpus', title: 'GPUs', status: 'skip', required: false, found: 'nvidia-smi absent', evidence: [] },
  ],
};

describe('renderers', () => {
  it('prints a plain checklist with marks, evidence and hint when colour is off', () => {
    const text = renderChecklist(report, { color: false });
    expect(text).not.toMatch(/\x1b\[/);
    expect(text).toContain('✔ Target is reachable — HTTP answered');
    expect(text).toContain("✖ Tool accepts the run's flags: /tmp/b.py — not accepted: --num-requests");
    expect(text).toContain('    python3 /tmp/b.py --help: usage: b.py [-h] | x');
    expect(text).toContain('! Server process found (advisory)');
    expect(text).toContain('- GPUs');
    expect(text).toContain('checkpoint failed: 1 required check failed');
    expect(renderChecklist(report, { color: true })).toMatch(/\x1b\[31m✖/);
  });

  it('honours NO_COLOR and non-TTY streams', () => {
    expect(wantsColor({ isTTY: true }, {})).toBe(true);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColor({ isTTY: false }, {})).toBe(false);
  });

  it('renders Markdown with escaped table cells and an evidence section', () => {
    const md = renderMarkdown(report);
    expect(md).toContain('## Checkpoint: FAILED');
    expect(md).toContain("| ❌ fail | Tool accepts the run's flags: /tmp/b.py (`tool.0.flags`) | yes |");
    expect(md).toContain('usage: b.py [-h] | x');
    expect(md).toContain('- hint: Update the tool.');
  });

  it('renders JSON that round-trips', () => {
    expect(JSON.parse(renderJson(report, null))).toMatchObject({
      schema: 'benchgate.checkpoint/1',
      ok: false,
      verifiedTarget: null,
    });
  });
});
