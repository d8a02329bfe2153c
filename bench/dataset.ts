// What the loader and the query builder need from any generated dataset. New dataset kinds (issue 5)
// register a factory here; workloads name the kind.
import { createMovieDataset } from './movie-dataset.js';
import { createNpmDataset } from './npm-dataset.js';
import { createVegaMoviesDataset } from './vega-movies-dataset.js';
import type { ZipfSampler } from './zipf-sampler.js';

export type BenchDocument = Record<string, unknown>;

export interface DatasetSpec {
  kind: string;
  documents: number;
  seed: number;
  vocabularySize: number;
  zipfExponent: number;
}

export interface Dataset {
  /** As asked, except `documents` is capped for finite (real) datasets. */
  readonly spec: DatasetSpec;
  readonly primaryKey: string;
  /** Index = frequency rank in the generated text. */
  readonly vocabulary: readonly string[];
  readonly wordSampler: ZipfSampler;
  /** Random access and deterministic: document i is the same whatever was generated before. */
  documentAt(index: number): BenchDocument;
  /** Lowercase words a user would plausibly type to find document i (e.g. its title). */
  queryableWordsAt(index: number): string[];
}

const factories: Record<string, (spec: DatasetSpec) => Dataset> = {
  movies: createMovieDataset,
  'vega-movies': createVegaMoviesDataset,
  npm: createNpmDataset,
};

export function datasetKinds(): string[] {
  return Object.keys(factories);
}

export function createDataset(spec: DatasetSpec): Dataset {
  const factory = factories[spec.kind];
  if (!factory) throw new Error(`unknown dataset kind "${spec.kind}" (known: ${datasetKinds().join(', ')})`);
  return factory(spec);
}
