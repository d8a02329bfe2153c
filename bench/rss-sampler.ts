// Samples a process's resident set size at a fixed interval while a phase runs (the load phase: the
// issue's memory target is about indexing), so the report shows the peak of that phase and not only
// what is left after it. VmHWM read at the phase's end is the exact peak since the process started.
import { readMemory } from './process-stats.js';

export interface RssPeak {
  /** Highest VmRSS among the samples (null: never readable). */
  maxSampledRssBytes: number | null;
  /** VmHWM when the phase ended: the process's peak RSS so far, sampling gaps included. */
  peakRssBytes: number | null;
  samples: number;
}

export interface RssSampler {
  stop(): RssPeak;
}

export function startRssSampler(pid: number, intervalMs = 200): RssSampler {
  let max: number | null = null;
  let samples = 0;
  const sample = () => {
    const memory = readMemory(pid);
    if (!memory) return;
    samples++;
    if (max === null || memory.rssBytes > max) max = memory.rssBytes;
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { maxSampledRssBytes: max, peakRssBytes: readMemory(pid)?.peakRssBytes ?? null, samples };
    },
  };
}
