// The results store's tables (documented in docs/results-store.md). The run directories are the truth;
// these tables are an index rebuilt from them at any time, so a change of shape bumps STORE_SCHEMA_VERSION
// and an older store is rebuilt rather than migrated.

/** Version of the tables below; a store with another version is rebuilt from the run directories. */
// 2: validity read from the run's one judgement (a failed required lossless check is invalid, the run
// `failed`); a percentile its samples cannot support is NULL in levels (and null in `summary`).
export const STORE_SCHEMA_VERSION = 2;

/** The file name of the store in a results directory (results/layout.ts, beside the runs). */
export { STORE_FILE } from '../results/layout.js';

/** Per-level headline columns: [column, how it is read from a LevelSummary (see level-rows.ts)]. */
export const LEVEL_METRIC_COLUMNS = [
  'requests_per_s',
  'output_tokens_per_s',
  'total_tokens_per_s',
  'ttft_p50_ms',
  'ttft_p99_ms',
  'tpot_p50_ms',
  'tpot_p99_ms',
  'token_itl_p50_ms',
  'e2e_p50_ms',
  'e2e_p99_ms',
  'goodput_requests_per_s',
  'acceptance_length',
  'energy_per_token_j',
  'achieved_concurrency',
] as const;

export const STORE_DDL = [
  'CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR)',
  'CREATE TABLE roots (dir VARCHAR PRIMARY KEY)',
  `CREATE TABLE runs (
    dir VARCHAR PRIMARY KEY, id VARCHAR NOT NULL, run_id VARCHAR, name VARCHAR, matrix_dir VARCHAR,
    source VARCHAR, engine VARCHAR, engine_version VARCHAR, model VARCHAR,
    fingerprint VARCHAR, config_fingerprint VARCHAR, workload_fingerprint VARCHAR,
    load_kind VARCHAR, level_count INTEGER, gpus INTEGER,
    validity VARCHAR, validity_reasons VARCHAR, status VARCHAR,
    started_at VARCHAR, finished_at VARCHAR, host VARCHAR, benchgate_version VARCHAR,
    forced BOOLEAN, warnings VARCHAR, indexed_at VARCHAR)`,
  'CREATE TABLE config (dir VARCHAR, key VARCHAR, value VARCHAR)',
  `CREATE TABLE levels (
    dir VARCHAR, level_index INTEGER, kind VARCHAR, value DOUBLE, max_concurrency INTEGER, label VARCHAR,
    window_s DOUBLE, completed INTEGER, failed INTEGER,
    ${LEVEL_METRIC_COLUMNS.map((c) => `${c} DOUBLE`).join(', ')},
    client_limited BOOLEAN, validity VARCHAR, validity_reasons VARCHAR, summary VARCHAR)`,
  `CREATE TABLE requests (
    dir VARCHAR, level_index INTEGER, id INTEGER, error_code VARCHAR,
    http_status INTEGER, finish_reason VARCHAR, scheduled_ms DOUBLE, sent_ms DOUBLE,
    ttft_ms DOUBLE, ttft_content_ms DOUBLE, e2e_ms DOUBLE, e2e_incl_queue_ms DOUBLE, queue_wait_ms DOUBLE,
    tpot_ms DOUBLE, input_tokens INTEGER, output_tokens INTEGER, chunks INTEGER, spec_verify_steps INTEGER)`,
];

/** Tables a run's rows live in (deleted before the run is indexed again). */
export const RUN_TABLES = ['runs', 'config', 'levels', 'requests'] as const;
