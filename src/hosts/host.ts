// Where commands run and files are read: the local machine or an SSH host, behind one interface.
// Only this folder runs processes. Arguments are argv arrays; implementations quote every value
// so nothing from a plan can ever run as shell.

export interface ExecResult {
  /** Exit status; null when killed by a signal or timed out. */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface ExecOptions {
  timeoutMs?: number;
  /** Extra environment variables for the command. */
  env?: Record<string, string>;
  cwd?: string;
}

export interface Host {
  /** `local` or `ssh://user@host:port`, without secrets. */
  readonly description: string;
  /** Runs argv[0] with arguments argv[1..]; never through a shell unless argv is ['sh','-c',script]. */
  exec(argv: string[], opts?: ExecOptions): Promise<ExecResult>;
  /** Reads a text file; null when it does not exist. Throws BenchgateError(BG_E_HOST) when unreadable. */
  readFile(path: string): Promise<string | null>;
  close(): Promise<void>;
}
