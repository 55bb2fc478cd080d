// Stable error codes and the one error type that crosses module boundaries.
// Codes appear in request records, summaries and CLI output; messages are short sentences
// saying what was expected and what was found. The CLI maps `exitCode` to the process exit status.

export const ERROR_CODES = {
  // user input
  BG_E_PLAN_INVALID: 'the plan file or flags are invalid',
  BG_E_USAGE: 'the command line is invalid',
  BG_E_RUN_DIR: 'a directory is not a benchgate run or cannot be written',
  BG_E_DISK:
    'not enough free space for results, or a results file could not be written (full, quota, read-only)',
  BG_E_IMPORT: 'a file to import is not in the expected format',
  BG_E_TOKENIZER: 'the server tokenizer gave no usable token count',
  BG_E_REFERENCE: 'a lossless reference file cannot be read, is not one, or cannot be written',
  BG_E_STORE: 'the results store cannot be opened, read or written',
  BG_E_QUERY: 'a query of the results store was refused or failed',
  // target / transport (also used in request records)
  BG_E_CONNECT: 'could not connect to the target',
  BG_E_HTTP_STATUS: 'the target answered with a non-success HTTP status',
  BG_E_TTFT_TIMEOUT: 'no token arrived before the first-token timeout',
  BG_E_STALL_TIMEOUT: 'the stream stalled longer than the stall timeout',
  BG_E_TOTAL_TIMEOUT: 'the request exceeded the total timeout',
  BG_E_STREAM_TRUNCATED: 'the stream ended without a finish',
  BG_E_MALFORMED_CHUNK: 'a streamed chunk could not be parsed',
  BG_E_NOT_SSE: 'the target did not answer with an event stream',
  BG_E_ABORTED: 'the request was aborted by benchgate (interrupt or level end)',
  BG_E_STREAM_ERROR_EVENT: 'the server sent an error event inside the stream',
  BG_E_SSE_EVENT_TOO_LARGE: 'one streamed event exceeded the size cap',
  BG_E_CROSS_ORIGIN_REDIRECT: 'the target redirected to another origin (scheme, host or port)',
  BG_E_LEVEL_ERROR_RATE: "a level's error rate passed the plan's threshold (load.error_stop)",
  BG_E_ALL_FAILED: 'every request of the run failed',
  BG_E_SERVER_DOWN: 'the server stopped answering during the run and did not come back in time',
  BG_E_NO_MODEL: 'the server lists no model to benchmark',
  // checkpoint / matrix
  BG_E_CHECK_FAILED: 'a required checkpoint check failed',
  BG_E_HOST: 'a command or file on the host could not be run or read',
  BG_E_LAUNCH: 'a server could not be launched or did not become ready',
  BG_E_SIM: 'the embedded simulator could not start',
  BG_E_WORKER: 'a load worker thread (--workers) failed or exited before finishing its share',
  BG_E_INTERNAL: 'an unexpected internal error',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Codes a single request record may carry. */
export type RequestErrorCode =
  | 'BG_E_CONNECT'
  | 'BG_E_HTTP_STATUS'
  | 'BG_E_TTFT_TIMEOUT'
  | 'BG_E_STALL_TIMEOUT'
  | 'BG_E_TOTAL_TIMEOUT'
  | 'BG_E_STREAM_TRUNCATED'
  | 'BG_E_MALFORMED_CHUNK'
  | 'BG_E_NOT_SSE'
  | 'BG_E_ABORTED'
  | 'BG_E_STREAM_ERROR_EVENT'
  | 'BG_E_SSE_EVENT_TOO_LARGE';

export class BenchgateError extends Error {
  readonly code: ErrorCode;
  /** Process exit status the CLI uses: 2 for usage/plan errors, 1 otherwise. */
  readonly exitCode: number;
  /** Extra lines (e.g. every plan error) printed after the message. */
  readonly details: string[];

  constructor(
    code: ErrorCode,
    message: string,
    opts: { exitCode?: number; details?: string[]; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'BenchgateError';
    this.code = code;
    this.exitCode = opts.exitCode ?? (code === 'BG_E_PLAN_INVALID' || code === 'BG_E_USAGE' ? 2 : 1);
    this.details = opts.details ?? [];
  }
}

export function isBenchgateError(e: unknown): e is BenchgateError {
  return e instanceof BenchgateError;
}
