// The plan's default request timeouts as client deadlines, for tests and benchmarks that drive the
// client without a plan: the defaults have one home, the plan schema.

import { targetSchema } from '../../plan/schema.js';
import { type StreamTimeouts, timeoutsFromPlan } from '../stream-request.js';

export function planDefaultTimeouts(overrides: Partial<StreamTimeouts> = {}): StreamTimeouts {
  return { ...timeoutsFromPlan(targetSchema.shape.timeouts.parse(undefined)), ...overrides };
}
