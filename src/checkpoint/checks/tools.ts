// Tools the run depends on: the file exists on the host, optionally has the pinned sha256, its help
// declares every flag the run will pass (help-flags.ts reads the libraries' help formats), or a dry run
// exits 0. A refusal is named by its kind: a rejected flag, a missing required argument (the tool
// accepts the flag but needs it), a refused value. A help that cannot be read leaves the flags unknown.

import { describeNoValue } from '../../core/read-result.js';
import type { ExecResult } from '../../hosts/host.js';
import type { ToolSpec } from '../../plan/schema.js';
import { commandArgv } from '../command-template.js';
import { type CheckContext, excerpt, finding } from '../context.js';
import type { Finding } from '../finding.js';
import { describeRefusal, judgeFlags, readHelp, readRejections } from '../help-flags.js';

const TOOL_TIMEOUT_MS = 30_000;

/** `: rejected --x (the line saying so)`, `: missing required arguments: …` for each refusal, or empty. */
function rejectionText(text: string): string {
  const rs = readRejections(text);
  return rs.length === 0 ? '' : `: ${rs.map(describeRefusal).join('; ')}`;
}

/** tool.N.flags: the help declares (or argparse would take by prefix) every flag; no refusal printed. */
function flagsFinding(id: string, tool: ToolSpec, argv: string[], r: ExecResult): Finding {
  const text = `${r.stdout}\n${r.stderr}`;
  const title = `Tool accepts the run's flags: ${tool.path}`;
  const expected = tool.accepts.length > 0 ? `accepts ${tool.accepts.join(' ')}` : undefined;
  const ev = [{ source: 'command' as const, where: argv.join(' '), excerpt: excerpt(text, 400) }];
  const req = tool.required;
  if (r.timedOut)
    return finding(`${id}.flags`, title, 'fail', {
      required: req,
      expected,
      found: 'the help command timed out',
      evidence: ev,
    });
  const rejections = readRejections(text);
  const help = readHelp(text, r.code);
  if (rejections.length > 0 || (r.code === 2 && help.kind !== 'value')) {
    return finding(`${id}.flags`, title, 'fail', {
      required: req,
      expected,
      found: `the tool refused the help command (exit status ${r.code})${rejectionText(text)}`,
      evidence: ev,
      hint: "Fix tools[].help so it only asks for help, or update the tool's flags.",
    });
  }
  if (help.kind !== 'value') {
    return finding(`${id}.flags`, title, 'fail', {
      required: req,
      expected: expected ?? 'help text listing options',
      found: `unknown whether the tool accepts the flags: the help is ${describeNoValue(help)}`,
      evidence: ev,
      hint: "Fix tools[].help so it prints the tool's option list.",
    });
  }
  const verdicts = judgeFlags(help.value, tool.accepts);
  const unknown = verdicts.flatMap((v) => (v.verdict === 'unknown' ? [v] : []));
  if (unknown.length > 0) {
    return finding(`${id}.flags`, title, 'fail', {
      required: req,
      expected,
      found: `unknown whether the tool accepts ${unknown.map((v) => v.flag).join(', ')}: ${unknown[0].reason}`,
      evidence: ev,
      hint: "Fix tools[].help so it prints the tool's whole option list.",
    });
  }
  const bad = verdicts.flatMap((v) =>
    v.verdict === 'missing'
      ? [v.flag]
      : v.verdict === 'ambiguous'
        ? [`${v.flag} (ambiguous: ${v.candidates.join(', ')})`]
        : [],
  );
  const abbreviated = verdicts.flatMap((v) =>
    v.verdict === 'abbreviation'
      ? [`${v.flag} as an abbreviation of ${v.full} (argparse prefix matching)`]
      : [],
  );
  const accepted = abbreviated.length > 0 ? `; accepted ${abbreviated.join(', ')}` : '';
  return finding(`${id}.flags`, title, bad.length === 0 ? 'pass' : 'fail', {
    required: req,
    expected,
    found:
      bad.length === 0
        ? `${help.value.flags.size} options declared${tool.accepts.length ? ', all requested flags accepted' : ''}${accepted}`
        : `not accepted: ${bad.join(', ')}${accepted}`,
    evidence: ev,
    hint:
      bad.length === 0
        ? undefined
        : `The tool would reject ${bad.join(', ')}; update the tool or the flags the run passes.`,
  });
}

async function checkTool(ctx: CheckContext, tool: ToolSpec, i: number): Promise<Finding[]> {
  const id = `tool.${i}`;
  const req = tool.required;
  const exists = await ctx.host.exec(['test', '-e', tool.path], { timeoutMs: TOOL_TIMEOUT_MS });
  if (exists.code !== 0) {
    return [
      finding(`${id}.exists`, `Tool exists: ${tool.path}`, 'fail', {
        required: req,
        expected: `a file at ${tool.path} on ${ctx.host.description}`,
        found: 'no such file',
        hint: 'Copy the tool to the host or fix tools[].path.',
      }),
    ];
  }
  const out: Finding[] = [
    finding(`${id}.exists`, `Tool exists: ${tool.path}`, 'pass', { required: req, found: 'present' }),
  ];
  if (tool.sha256) {
    const r = await ctx.host.exec(['sha256sum', '--', tool.path], { timeoutMs: TOOL_TIMEOUT_MS });
    const got = r.stdout.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
    const ok = r.code === 0 && got === tool.sha256.toLowerCase();
    out.push(
      finding(`${id}.sha256`, `Tool checksum: ${tool.path}`, ok ? 'pass' : 'fail', {
        required: req,
        expected: tool.sha256.toLowerCase(),
        found: r.code === 0 ? got : `sha256sum failed: ${excerpt(r.stderr)}`,
        evidence: [
          { source: 'command', where: `sha256sum -- ${tool.path}`, excerpt: excerpt(r.stdout || r.stderr) },
        ],
        hint: ok ? undefined : 'The tool on the host is not the version the plan pins.',
      }),
    );
  }
  if (tool.help) {
    const argv = commandArgv(tool.help, tool.path);
    const r = await ctx.host.exec(argv, { timeoutMs: TOOL_TIMEOUT_MS });
    out.push(flagsFinding(id, tool, argv, r));
  } else if (tool.accepts.length > 0 && !tool.dry_run) {
    out.push(
      finding(`${id}.flags`, `Tool accepts the run's flags: ${tool.path}`, 'fail', {
        required: req,
        expected: `accepts ${tool.accepts.join(' ')}`,
        found: 'not verified: no help or dry_run command given',
        hint: 'Add tools[].help (e.g. "python3 {path} --help") or tools[].dry_run.',
      }),
    );
  }
  if (tool.dry_run) {
    const argv = commandArgv(tool.dry_run, tool.path);
    const r = await ctx.host.exec(argv, { timeoutMs: TOOL_TIMEOUT_MS });
    out.push(
      finding(`${id}.dry_run`, `Tool dry run: ${tool.path}`, r.code === 0 ? 'pass' : 'fail', {
        required: req,
        expected: 'exit status 0',
        found: r.timedOut ? 'timed out' : `exit status ${r.code}${rejectionText(`${r.stdout}\n${r.stderr}`)}`,
        evidence: [
          { source: 'command', where: argv.join(' '), excerpt: excerpt(`${r.stdout}\n${r.stderr}`, 400) },
        ],
      }),
    );
  }
  return out;
}

export async function checkTools(ctx: CheckContext): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const [i, tool] of ctx.plan.tools.entries()) {
    try {
      out.push(...(await checkTool(ctx, tool, i)));
    } catch (e) {
      out.push(
        finding(`tool.${i}`, `Tool check: ${tool.path}`, 'fail', {
          required: tool.required,
          found: (e as Error).message,
        }),
      );
    }
  }
  return out;
}
