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

/** A long-running process started on a host (a server launched by the matrix). */
export interface SpawnedProcess {
  /** PID on the host (for SSH: the remote PID, read back after start). */
  readonly pid: number;
  /** Resolves with the exit status (or signal name) when the process ends. */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  /** Sends a signal to the whole process group. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

export interface SpawnOptions extends ExecOptions {
  /** File that receives stdout and stderr (appended), on the machine running benchgate. */
  outputFile?: string;
  /** Called with each output line as it arrives (scrubbed of secrets, like the file: hosts/output-sink.ts). */
  onLine?: (line: string) => void;
  /** Secret values the output must not show, beyond those of `env` and the argv's secret flags (an API key the plan names). */
  secrets?: readonly string[];
}

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Start time as ISO wall-clock, from /proc/<pid>/stat + boot time. */
  startTime: string | null;
  argv: string[];
  /** Environment from /proc/<pid>/environ; values of secret-looking keys replaced by "<redacted>". */
  env: Record<string, string> | null;
  state: string;
}

/** One variable of a process's environment, read unredacted from /proc/<pid>/environ. */
export type EnvironRead =
  | { kind: 'value'; value: string }
  | { kind: 'absent' }
  /** The environment could not be read: another user's process, or no such process. */
  | { kind: 'unreadable' };

export interface ProcessHost extends Host {
  spawn(argv: string[], opts?: SpawnOptions): Promise<SpawnedProcess>;
  /** PIDs listening on a TCP port (from /proc/net/tcp{,6} inode → /proc/<pid>/fd). */
  listeningPids(port: number): Promise<number[]>;
  processInfo(pid: number): Promise<ProcessInfo | null>;
  /** The value of `name` in the process's environment, unredacted: only for a value that proves a launch. */
  environValue(pid: number, name: string): Promise<EnvironRead>;
}
