// Whether a fresh server warms its write paths up (the shard workers' src/shard/warm-up.ts writeWarmUpSteps,
// the payload decoder's src/front/threads/warm-up.ts warmUpIngest): on unless SKEIN_WRITE_WARM_UP=0 (the
// HTTP test suite's harness turns them off: hundreds of servers start there). Read by each thread at its start.
export function writeWarmUpsEnabled(): boolean {
  return process.env.SKEIN_WRITE_WARM_UP !== '0';
}
