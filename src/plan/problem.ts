// A plan problem: one thing wrong with a plan, tied to the key path it concerns and to where in the
// source it should point (the value, the key itself, or the parent of a missing key). Positions are
// resolved later by whoever knows the source (a YAML file, or command-line flags).

export type PlanPath = (string | number)[];

export interface PlanProblem {
  path: PlanPath;
  message: string;
  /** value: the value at path; key: the key of path's last segment (unknown keys); parent: path minus its last segment. */
  anchor: 'value' | 'key' | 'parent';
}

/** `load.levels[2]`, `configs[0].name`, `expect.config["speculative.topk"]`; the root is "(top level)". */
export function formatPlanPath(path: PlanPath): string {
  if (path.length === 0) return '(top level)';
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_][\w-]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** The raw value at a path, or undefined. */
export function valueAt(root: unknown, path: PlanPath): unknown {
  let cur: unknown = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

/** A user-facing name for the kind of a raw value (never the value itself, which may be a secret). */
export function describeFound(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return 'text';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'not a number';
    if (!Number.isFinite(value)) return 'an infinite number';
    return Number.isInteger(value) ? 'a whole number' : 'a number with a fraction';
  }
  return typeof value;
}
