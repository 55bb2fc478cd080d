// Named SLO presets: MLPerf Inference's latency constraints for its LLM benchmarks, so a plan can say
// `slo_search: { preset: mlperf-llama2-70b-interactive }` instead of copying numbers. MLPerf judges
// the 99th percentile of TTFT and TPOT (target_latency_percentile = 99 in the Server scenario).
// Figures: mlcommons/inference loadgen/mlperf.conf as of MLPerf Inference v5.1 (the rules version that
// added llama3_1-8b and deepseek-r1), keys `<model>.Server.ttft_latency` / `.tpot_latency` in ms.

export interface SloPreset {
  ttftMs: number;
  tpotMs: number;
  /** Share of requests that must meet both limits. */
  share: number;
  source: string;
}

const MLPERF = 'MLPerf Inference v5.1 loadgen/mlperf.conf';
const preset = (ttftMs: number, tpotMs: number): SloPreset => ({
  ttftMs,
  tpotMs,
  share: 0.99,
  source: MLPERF,
});

export const SLO_PRESETS: Record<string, SloPreset> = {
  'mlperf-llama2-70b-server': preset(2000, 200),
  'mlperf-llama2-70b-interactive': preset(450, 40),
  'mlperf-mixtral-8x7b-server': preset(2000, 200),
  'mlperf-llama3.1-405b-server': preset(6000, 175),
  'mlperf-llama3.1-405b-interactive': preset(4500, 80),
  'mlperf-llama3.1-8b-server': preset(2000, 100),
  'mlperf-llama3.1-8b-interactive': preset(500, 30),
  'mlperf-deepseek-r1-server': preset(2000, 80),
  'mlperf-deepseek-r1-interactive': preset(1500, 15),
};

export const SLO_PRESET_NAMES = Object.keys(SLO_PRESETS) as [string, ...string[]];
