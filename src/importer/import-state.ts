// The resume state of one import, in a small JSON file (`<FILE>.skein-import.json` unless --state):
// where the confirmed part of the file ends (every batch up to there has a succeeded task) and the
// batches sent after it with their task uids. Written atomically (temp file + rename) after every
// send and every finished task, so even a SIGKILL leaves a state that is at worst a little behind:
// a resumed import then re-sends a few batches, which is safe (documents are upserts by primary key).
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { describeFsError, type InputFile, type InputFormat } from './input-file.js';
import { ImportFailure } from './import-failure.js';
import type { ReadPosition } from './records.js';

export interface SentBatchState {
  /** Null when the batch was refused or its answer never came. */
  taskUid: number | null;
  start: ReadPosition;
  end: ReadPosition;
  documents: number;
}

export interface ImportState {
  version: 1;
  file: string;
  fileSize: number;
  fileMtimeMs: number;
  headHash: string;
  format: InputFormat;
  index: string;
  csvHeader: { raw: string; terminator: string } | null;
  /** The file up to here is in the index (every batch's task succeeded). */
  confirmed: ReadPosition & { documents: number };
  /** Batches sent after the confirmed part, in file order. */
  sent: SentBatchState[];
  updatedAt: string;
}

export function defaultStatePath(file: string): string {
  return `${file}.skein-import.json`;
}

export function readState(path: string): ImportState | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ImportFailure(`cannot read the state file ${path}: ${describeFsError(cause)}`);
  }
  let state: ImportState;
  try {
    state = JSON.parse(text) as ImportState;
  } catch {
    throw new ImportFailure(`the state file ${path} is not valid JSON; delete it to start over`);
  }
  if (state.version !== 1 || typeof state.confirmed?.offset !== 'number' || !Array.isArray(state.sent)) {
    throw new ImportFailure(`the state file ${path} is not one this version of skein import wrote; delete it to start over`);
  }
  return state;
}

export function writeState(path: string, state: ImportState): void {
  const temporary = `${path}.tmp`;
  try {
    writeFileSync(temporary, JSON.stringify({ ...state, updatedAt: new Date().toISOString() }, null, 1));
    renameSync(temporary, path);
  } catch (cause) {
    throw new ImportFailure(`cannot write the state file ${path}: ${describeFsError(cause)} (choose another place with --state PATH, or --no-state)`);
  }
}

export function removeState(path: string): void {
  rmSync(path, { force: true });
  rmSync(`${path}.tmp`, { force: true });
}

/** Why `state` cannot be resumed on `input` into `index`; null when it can. Warnings go to `warn`. */
export function resumeProblem(state: ImportState, input: InputFile, index: string, warn: (message: string) => void): string | null {
  if (state.index !== index) return `it is an import into index \`${state.index}\`, not \`${index}\``;
  if (state.format !== input.format) return `it is a ${state.format} import, this one reads ${input.format}`;
  if (state.headHash !== input.headHash) return 'the file\'s first 64 KiB differ from the file that import read: it is another file';
  if (state.fileSize !== input.size || state.fileMtimeMs !== input.mtimeMs) {
    warn('the file was modified since the interrupted import; resuming where it stopped, as its start is unchanged');
  }
  return null;
}
