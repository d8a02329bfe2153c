// Progress bars on stderr for the long phases (loading, warm-up and measured runs), drawn by
// cli-progress. Off when stderr is not a terminal (CI logs, tests): the log lines say enough there.
import cliProgress from 'cli-progress';

export interface Progress {
  update(value: number, label?: string): void;
  stop(): void;
}

const silent: Progress = { update: () => {}, stop: () => {} };

export function startProgress(label: string, total: number, unit: string): Progress {
  if (!process.stderr.isTTY) return silent;
  const bar = new cliProgress.SingleBar(
    { format: `{label} [{bar}] {value}/{total} ${unit} | {duration_formatted}`, stream: process.stderr, hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { label });
  return {
    update: (value, newLabel) => bar.update(value, newLabel === undefined ? undefined : { label: newLabel }),
    stop: () => bar.stop(),
  };
}
