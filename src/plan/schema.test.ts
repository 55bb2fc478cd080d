import { describe, expect, it } from 'vitest';
import { planJsonSchema, planSchema } from './schema.js';

interface JsonSchemaNode {
  description?: string;
  properties?: Record<string, JsonSchemaNode>;
  items?: JsonSchemaNode;
  anyOf?: JsonSchemaNode[];
  additionalProperties?: JsonSchemaNode | boolean;
}

function undocumented(node: JsonSchemaNode, path: string, out: string[]): string[] {
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    if (!child.description) out.push(`${path}.${key}`);
    undocumented(child, `${path}.${key}`, out);
  }
  if (node.items) undocumented(node.items, `${path}[]`, out);
  for (const option of node.anyOf ?? []) undocumented(option, path, out);
  if (typeof node.additionalProperties === 'object')
    undocumented(node.additionalProperties, `${path}.*`, out);
  return out;
}

describe('plan schema', () => {
  it('documents every option in the JSON Schema it prints', () => {
    expect(undocumented(planJsonSchema() as JsonSchemaNode, '', [])).toEqual([]);
  });

  it('accepts only durations the run can parse', () => {
    const ok = (duration: unknown) => planSchema.safeParse({ load: { duration } }).success;
    expect([ok('90s'), ok('1h30m'), ok('250ms'), ok(45), ok('12')]).toEqual([true, true, true, true, true]);
    expect([ok('15m30'), ok('1.5.5s'), ok('soon'), ok(-1), ok('')]).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
