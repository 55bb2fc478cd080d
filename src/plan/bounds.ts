// The largest value each plan number may take: what one benchgate process and one run can hold. A plan
// beyond them used to validate and then abort V8 (a 1e9-token prompt), allocate gigabytes before the
// first request (1000 worker threads, 1e9 prefix groups), fail deep in the file system (a 300-character
// name) or hang (a timer of 1e300 ms, which Node runs after 1 ms, or 1e12 s). The schema declares them;
// limits that depend on this machine (descriptors, memory, cores) are in process-limits.ts.

/** Tokens of one prompt, reply or prefix: above any served context window (~8 MB of text). */
export const MAX_TOKENS = 2_097_152;
/** Measured (or warmup) requests of one level: their summaries are computed in memory. */
export const MAX_REQUESTS_PER_LEVEL = 1_000_000;
/** Distinct shared prefixes: each is built and kept in memory for the whole level. */
export const MAX_PREFIX_GROUPS = 100_000;
/** Turns of one conversation. */
export const MAX_TURNS = 1_000;
/** Worker threads whatever the machine (each is a V8 isolate); process-limits.ts also bounds them by cores and memory. */
export const MAX_WORKERS = 256;
/** Open-loop requests per second of one level. */
export const MAX_RATE = 1_000_000;
/** A run or config name becomes a directory name (the file system allows 255 bytes, with a time stamp before it). */
export const MAX_NAME_CHARS = 100;
/** One request's timeouts, in seconds (a day). */
export const MAX_REQUEST_TIMEOUT_S = 86_400;
/** Waiting for a server to load or become ready, in seconds (a day). */
export const MAX_WAIT_S = 86_400;
/** One level's duration, in seconds (a week). */
export const MAX_LEVEL_DURATION_S = 7 * 86_400;
/** A stop grace period, in seconds (an hour). */
export const MAX_GRACE_S = 3_600;
/** One back-off or think-time wait, in ms (ten minutes). */
export const MAX_PAUSE_MS = 600_000;
/** Items of a list a person writes by hand (configs, tools, log assertions, percentiles). */
export const MAX_LIST_ITEMS = 1_000;
/** Sampling temperature. */
export const MAX_TEMPERATURE = 100;
/** GPUs one host can have, and the memory of one (MiB). */
export const MAX_GPUS = 4_096;
export const MAX_GPU_MEMORY_MIB = 1_048_576;
/**
 * A file a plan names (dataset, trace, tokenizer.json, lossless reference): each is read whole as one
 * string, and V8 cannot hold a string of more than 2^29 − 24 characters (~512 MiB).
 */
export const MAX_PLAN_DATA_FILE_BYTES = 512 * 1024 * 1024;
