// Translates zod validation issues of the plan schema into plan problems with short, specific messages
// ("expected one of: completions, chat, native", "unknown key; did you mean \"requests\"?"), one per key,
// so a user sees every mistake at once in words rather than zod's internals.

import type { z } from 'zod';
import { describeFound, type PlanPath, type PlanProblem, valueAt } from './problem.js';
import { planSchema } from './schema.js';

type Issue = z.core.$ZodIssue;
// zod's internal definitions are walked structurally; only the fields read below are typed.
interface SchemaNode {
  description?: string;
  def: {
    type: string;
    innerType?: SchemaNode;
    in?: SchemaNode;
    shape?: Record<string, SchemaNode>;
    element?: SchemaNode;
    valueType?: SchemaNode;
    items?: SchemaNode[];
    options?: SchemaNode[];
  };
}

const WRAPPERS = new Set(['default', 'prefault', 'optional', 'nullable', 'readonly', 'catch', 'nonoptional']);

function unwrap(node: SchemaNode): SchemaNode {
  let cur = node;
  for (;;) {
    if (WRAPPERS.has(cur.def.type) && cur.def.innerType) cur = cur.def.innerType;
    else if (cur.def.type === 'pipe' && cur.def.in) cur = cur.def.in;
    else return cur;
  }
}

/** The object keys a union option accepts, or null when the option is not an object. */
function objectKeys(node: SchemaNode): string[] | null {
  const inner = unwrap(node);
  return inner.def.type === 'object' && inner.def.shape ? Object.keys(inner.def.shape) : null;
}

/** Index of the union option whose object keys cover every key the user wrote, if exactly one does. */
function optionMatchingKeys(options: SchemaNode[], value: unknown): number | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const written = Object.keys(value);
  if (written.length === 0) return null;
  const matches = options
    .map((o, i) => ({ i, keys: objectKeys(o) }))
    .filter((o) => o.keys !== null && written.every((k) => o.keys!.includes(k)));
  return matches.length === 1 ? matches[0]!.i : null;
}

/** The schema node describing the value at a path (through wrappers, arrays, records, unions of objects). */
export function schemaAt(
  path: PlanPath,
  node: SchemaNode = planSchema as unknown as SchemaNode,
): SchemaNode | null {
  let cur: SchemaNode | null = unwrap(node);
  for (let i = 0; i < path.length && cur; i++) {
    const seg = path[i]!;
    const def: SchemaNode['def'] = cur.def;
    let next: SchemaNode | undefined;
    if (def.type === 'object') next = def.shape?.[String(seg)];
    else if (def.type === 'array') next = def.element;
    else if (def.type === 'record') next = def.valueType;
    else if (def.type === 'tuple') next = typeof seg === 'number' ? def.items?.[seg] : undefined;
    else if (def.type === 'union' && def.options) {
      // The one object option that has this key, if exactly one does.
      const having = def.options.filter((o) => objectKeys(o)?.includes(String(seg)));
      next = having.length === 1 ? unwrap(having[0]!).def.shape?.[String(seg)] : undefined;
    }
    cur = next ? unwrap(next) : null;
  }
  return cur;
}

/** Keys an object accepts; for a union of objects, the keys of the one option sharing a key with the value. */
function allowedKeys(node: SchemaNode | null, value: unknown): string[] | null {
  if (!node) return null;
  if (node.def.type !== 'union') return objectKeys(node);
  if (value === null || typeof value !== 'object') return null;
  const written = Object.keys(value);
  const sharing = (node.def.options ?? [])
    .map(objectKeys)
    .filter((keys): keys is string[] => keys !== null && written.some((k) => keys.includes(k)));
  return sharing.length === 1 ? sharing[0]! : null;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

function unknownKeyMessage(key: string, allowed: string[] | null): string {
  if (!allowed || allowed.length === 0) return 'unknown key';
  const close = allowed
    .map((k) => ({ k, d: editDistance(key.toLowerCase(), k.toLowerCase()) }))
    .filter((c) => c.d <= Math.max(1, Math.floor(key.length / 3)))
    .sort((x, y) => x.d - y.d)[0];
  return close
    ? `unknown key; did you mean "${close.k}"?`
    : `unknown key; expected one of: ${allowed.join(', ')}`;
}

const EXPECTED_NAMES: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  object: 'a mapping',
  array: 'a list',
  boolean: 'true or false',
  tuple: 'a list',
  record: 'a mapping',
};

function bound(origin: string, op: string, limit: number | bigint): string {
  const n = Number(limit);
  if (origin === 'array' || origin === 'set')
    return `needs ${op === '<=' ? 'at most' : 'at least'} ${n} item${n === 1 ? '' : 's'}`;
  if (origin === 'string') {
    if (op === '>=' && n === 1) return 'must not be empty';
    return `needs ${op === '<=' ? 'at most' : 'at least'} ${n} character${n === 1 ? '' : 's'}`;
  }
  return `must be ${op} ${n}`;
}

function describeSchema(node: SchemaNode | null): string | null {
  const text = node?.description;
  if (!text) return null;
  return text.charAt(0).toLowerCase() + text.slice(1).replace(/\.$/, '');
}

/** Problems for one zod issue (an issue of unknown keys becomes one problem per key). */
function problemsFor(issue: Issue, base: PlanPath, raw: unknown): PlanProblem[] {
  const path: PlanPath = [...base, ...(issue.path as PlanPath)];
  const found = valueAt(raw, path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const allowed = allowedKeys(schemaAt(path), found);
      return issue.keys.map((k) => ({
        path: [...path, k],
        message: unknownKeyMessage(k, allowed),
        anchor: 'key',
      }));
    }
    case 'invalid_type': {
      if (found === undefined) return [{ path, message: 'this required key is missing', anchor: 'parent' }];
      const expected = EXPECTED_NAMES[issue.expected] ?? issue.expected;
      return [{ path, message: `expected ${expected}, found ${describeFound(found)}`, anchor: 'value' }];
    }
    case 'too_small':
      return [
        { path, message: bound(issue.origin, issue.inclusive ? '>=' : '>', issue.minimum), anchor: 'value' },
      ];
    case 'too_big':
      return [
        { path, message: bound(issue.origin, issue.inclusive ? '<=' : '<', issue.maximum), anchor: 'value' },
      ];
    case 'invalid_value': {
      const values = issue.values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
      const message = values.length === 1 ? `expected ${values[0]}` : `expected one of: ${values.join(', ')}`;
      return [{ path, message, anchor: 'value' }];
    }
    case 'invalid_format': {
      if (issue.format === 'url')
        return [{ path, message: 'expected a URL such as http://127.0.0.1:30000', anchor: 'value' }];
      const custom = !issue.message.startsWith('Invalid');
      return [
        {
          path,
          message: custom
            ? `expected ${issue.message}`
            : `expected text matching ${issue.pattern ?? issue.format}`,
          anchor: 'value',
        },
      ];
    }
    case 'not_multiple_of':
      return [{ path, message: `must be a multiple of ${Number(issue.divisor)}`, anchor: 'value' }];
    case 'invalid_union': {
      const union = schemaAt(path);
      const options = union?.def.type === 'union' ? (union.def.options ?? []) : [];
      const byKeys = optionMatchingKeys(options, found);
      const viable = issue.errors
        .map((errs, i) => ({ errs, i }))
        .filter(
          ({ errs }) =>
            !errs.some(
              (e) => e.path.length === 0 && (e.code === 'invalid_type' || e.code === 'unrecognized_keys'),
            ),
        );
      const chosen = byKeys ?? (viable.length === 1 ? viable[0]!.i : null);
      if (chosen !== null && issue.errors[chosen])
        return issue.errors[chosen].flatMap((e) => problemsFor(e, path, raw));
      const described = describeSchema(union);
      return [
        {
          path,
          message: described
            ? `expected ${described}; found ${describeFound(found)}`
            : `unexpected ${describeFound(found)}`,
          anchor: found === undefined ? 'parent' : 'value',
        },
      ];
    }
    default:
      return [{ path, message: issue.message, anchor: found === undefined ? 'parent' : 'value' }];
  }
}

/** Every schema problem of a raw plan object, in schema order. */
export function schemaProblems(raw: unknown): PlanProblem[] {
  const result = planSchema.safeParse(raw);
  if (result.success) return [];
  return result.error.issues.flatMap((issue) => problemsFor(issue, [], raw));
}
