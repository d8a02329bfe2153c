// Search parameters for the structured query kinds of the filters workload, shaped on the movies
// schema (genre, year, price, _geo): filters, facets, sorts and geo radius. The attributes must be
// filterable/sortable in the workload's settings; until the server supports them the queries may
// answer non-2xx, which the load generator counts per kind.
import { movieCities, movieGenres } from './movie-dataset.js';
import type { SeededRandom } from './seeded-random.js';

export function filterExpression(random: SeededRandom): string {
  const genre = `genre = ${JSON.stringify(random.pick(movieGenres))}`;
  const fromYear = random.int(1950, 2020);
  const years = `year ${fromYear} TO ${fromYear + random.int(1, 10)}`;
  const price = `price < ${random.int(5, 40)}`;
  switch (random.int(0, 3)) {
    case 0:
      return genre;
    case 1:
      return `${genre} AND ${years}`;
    case 2:
      return `${years} AND ${price}`;
    default:
      return `(genre = ${JSON.stringify(random.pick(movieGenres))} OR ${genre}) AND NOT ${price}`;
  }
}

export function facetParams(random: SeededRandom): Record<string, unknown> {
  return random.chance(0.5) ? { facets: ['genre', 'year'] } : { facets: ['genre'], filter: `year >= ${random.int(1990, 2020)}` };
}

export function sortParams(random: SeededRandom): Record<string, unknown> {
  return { sort: [random.pick(['price:asc', 'price:desc', 'year:desc', 'year:asc'])] };
}

/** A radius around one of the cities the documents cluster around (dense), or open sea (empty). */
export function geoParams(random: SeededRandom): Record<string, unknown> {
  const [lat, lng] = random.chance(0.9) ? random.pick(movieCities) : [0, -30];
  const radius = random.pick([5_000, 20_000, 100_000]);
  const params: Record<string, unknown> = { filter: `_geoRadius(${lat}, ${lng}, ${radius})` };
  if (random.chance(0.5)) params.sort = [`_geoPoint(${lat}, ${lng}):asc`];
  return params;
}
