// The model load as it happens: a long simulated load prints the weight-loading progress line SGLang
// and vLLM print (their tqdm bar over the safetensors shards, "Loading safetensors checkpoint shards:
// 40% Completed | 4/10 [04:00<06:00, 60.00s/it]") one shard at a time, instead of every load line at
// the end, so a user watching `benchgate sim` sees the load move.

/** Loads shorter than this print only their begin and end lines. */
const MIN_PROGRESS_LOAD_S = 10;
const SHARDS = 10;

/** mm:ss as tqdm prints elapsed and remaining time (h:mm:ss past an hour). */
function clock(s: number): string {
  const t = Math.max(0, Math.round(s));
  const mm = String(Math.floor((t % 3600) / 60)).padStart(2, '0');
  const ss = String(t % 60).padStart(2, '0');
  return t >= 3600 ? `${Math.floor(t / 3600)}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** One tqdm line of the shard loader after `done` of `total` shards, `elapsedS` into a `loadS` load. */
export function shardProgressLine(done: number, total: number, elapsedS: number, loadS: number): string {
  const pct = String(Math.round((100 * done) / total)).padStart(3);
  const perShard = done > 0 ? elapsedS / done : loadS / total;
  return `Loading safetensors checkpoint shards: ${pct}% Completed | ${done}/${total} [${clock(elapsedS)}<${clock(loadS - elapsedS)}, ${perShard.toFixed(2)}s/it]`;
}

/**
 * Writes a progress line as each shard of a `loadS`-second load completes; `stop()` ends it (at the load's
 * end it writes the last, 100% line). Nothing for a short load.
 */
export function startLoadProgress(
  loadS: number,
  write: (line: string) => void,
): { stop(loaded: boolean): void } {
  if (!(loadS >= MIN_PROGRESS_LOAD_S)) return { stop() {} };
  const startedAt = performance.now();
  let done = 0;
  write(shardProgressLine(0, SHARDS, 0, loadS));
  const timer = setInterval(
    () => {
      if (done >= SHARDS - 1) return;
      done++;
      write(shardProgressLine(done, SHARDS, (performance.now() - startedAt) / 1000, loadS));
    },
    (loadS * 1000) / SHARDS,
  );
  timer.unref();
  return {
    stop(loaded) {
      clearInterval(timer);
      if (loaded) write(shardProgressLine(SHARDS, SHARDS, (performance.now() - startedAt) / 1000, loadS));
    },
  };
}
