// A shard's full build in part handed to the build helper thread (ShardIndex.prepareSteps): the
// structures whose passes over the documents run there (near-pair tables, position lists), each with
// the end that adopts the helper's answer. The shard worker builds the other structures meanwhile,
// then finishSteps waits for the answer (a promise yielded to SlicedJobs) and adopts it. A part
// another build overtook meanwhile (a search that could not wait built it at once) drops the answer;
// a part without one (the thread failed, or the steps were run at once without awaiting) is built
// here after all: the structures end as a build in steps here would leave them.
import type { ArenaBuildResult } from '../protocol/build-helper.js';
import type { DerivedStructure } from './derived-structure.js';
import { whileStale, type SlicedJob } from './sliced-jobs.js';

/** One structure's share of the helper's answer. */
export interface OffloadedPart {
  readonly structure: DerivedStructure;
  /** Adopts the structure's part of the answer; false when another build ended meanwhile (the answer is older). */
  adoptSteps(result: ArenaBuildResult): Generator<void, boolean, unknown>;
  /** Called instead of adoptSteps: no answer will be adopted (what the structure tracks for the build is let go). */
  abandon(): void;
}

export class OffloadedBuild {
  private result: ArenaBuildResult | null = null;
  private settled = false;
  private ended = false;
  private readonly arrived: Promise<void>;

  constructor(answer: Promise<ArenaBuildResult>, private readonly parts: readonly OffloadedPart[]) {
    this.arrived = answer.then((result) => {
      this.result = result;
      this.settled = true;
    }, () => {
      this.settled = true;
    });
  }

  /** The structure is built by the helper: the worker's own loop skips it. */
  covers(structure: DerivedStructure): boolean {
    return this.parts.some((part) => part.structure === structure);
  }

  /** Waits for the answer, adopts each part, and builds here any part left without one. */
  *finishSteps(): SlicedJob {
    if (!this.settled) yield this.arrived;
    const result = this.result;
    this.result = null;
    this.ended = true;
    for (const part of this.parts) {
      let adopted = false;
      if (result === null) part.abandon();
      else adopted = yield* part.adoptSteps(result);
      if (!adopted) yield* whileStale(() => part.structure.needsBuild, part.structure.buildSteps());
    }
  }

  /** The job stopped before finishSteps ended: the answer, when it comes, is dropped. */
  abandon(): void {
    if (this.ended) return;
    this.ended = true;
    for (const part of this.parts) part.abandon();
  }
}
