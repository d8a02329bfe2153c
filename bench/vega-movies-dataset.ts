// The "vega-movies" dataset: 3,201 real films from the vega-datasets npm package (devDependency;
// BSD-3-Clause; files inside the package, nothing downloaded), shaped like the synthetic movies
// (id, title, genre, year, price, rating, _geo) plus director and distributor, so the same workloads,
// filters included, run on real titles. _geo is a real US place from the package's zipcodes.csv,
// picked per film from the seed (the films have no location of their own); price is the production
// budget in millions of dollars.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { BenchDocument, Dataset, DatasetSpec } from './dataset.js';
import { SeededRandom, deriveSeed } from './seeded-random.js';
import { ZipfSampler } from './zipf-sampler.js';

interface VegaMovie {
  Title: string | number | null;
  'Major Genre': string | null;
  'Release Date': string | null;
  'Production Budget': number | null;
  'IMDB Rating': number | null;
  Director: string | null;
  Distributor: string | null;
}

function vegaDataDirectory(): string {
  // The package exports only its JS entry (build/index.js); the data sits beside build/.
  return join(dirname(createRequire(import.meta.url).resolve('vega-datasets')), '..', 'data');
}

/** [lat, lng] of every zipcode row. */
export function parseZipcodeCoordinates(csv: string): Array<[number, number]> {
  const places: Array<[number, number]> = [];
  for (const line of csv.split('\n').slice(1)) {
    const [, lat, lng] = line.split(',');
    if (!lat || !lng) continue;
    const point: [number, number] = [Number(lat), Number(lng)];
    if (Number.isFinite(point[0]) && Number.isFinite(point[1])) places.push(point);
  }
  return places;
}

export function titleWords(title: string): string[] {
  return title.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0);
}

/** Vocabulary by descending frequency (ties alphabetical), so rank 0 is the most common title word. */
export function vocabularyByFrequency(titles: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const title of titles) for (const word of titleWords(title)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return [...counts].sort(([a, x], [b, y]) => y - x || a.localeCompare(b)).map(([word]) => word);
}

export function toBenchMovie(movie: VegaMovie, id: number, place: readonly [number, number]): BenchDocument {
  const released = Date.parse(movie['Release Date'] ?? '');
  return {
    id,
    title: String(movie.Title ?? ''),
    genre: movie['Major Genre'] ?? 'Unknown',
    year: Number.isFinite(released) ? new Date(released).getUTCFullYear() : null,
    price: movie['Production Budget'] === null ? null : Math.round(movie['Production Budget'] / 1e4) / 100,
    rating: movie['IMDB Rating'],
    director: movie.Director,
    distributor: movie.Distributor,
    _geo: { lat: place[0], lng: place[1] },
  };
}

export function createVegaMoviesDataset(spec: DatasetSpec): Dataset {
  const directory = vegaDataDirectory();
  const movies = JSON.parse(readFileSync(join(directory, 'movies.json'), 'utf8')) as VegaMovie[];
  const places = parseZipcodeCoordinates(readFileSync(join(directory, 'zipcodes.csv'), 'utf8'));
  const documents = Math.min(spec.documents, movies.length);
  const titles = movies.slice(0, documents).map((movie) => String(movie.Title ?? ''));
  const vocabulary = vocabularyByFrequency(titles);
  return {
    spec: { ...spec, documents },
    primaryKey: 'id',
    vocabulary,
    wordSampler: new ZipfSampler(vocabulary.length, spec.zipfExponent),
    documentAt: (index) => toBenchMovie(movies[index], index, places[new SeededRandom(deriveSeed(spec.seed, 'place', index)).int(0, places.length - 1)]),
    queryableWordsAt: (index) => {
      const words = titleWords(titles[index]);
      return words.length > 0 ? words : [vocabulary[0]];
    },
  };
}
