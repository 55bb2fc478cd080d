// The visible text of one streamed chunk, read only when a caller asked for the reply (multi-turn
// conversations send it back verbatim as the next turn's history). A full JSON.parse is fine here:
// only conversations pay for it; the hot path (chunk-scan.ts) never calls this.

/** Visible content of an OpenAI chat (`delta.content`) or completions (`text`) chunk; '' when none. */
export function chunkContent(payload: string): string {
  let o: unknown;
  try {
    o = JSON.parse(payload);
  } catch {
    return '';
  }
  const choice = (o as { choices?: unknown[] } | null)?.choices?.[0] as
    | { delta?: { content?: unknown }; text?: unknown }
    | undefined;
  const text = choice?.delta?.content ?? choice?.text;
  return typeof text === 'string' ? text : '';
}
