// The "movies" dataset: {id, title, overview, genre, year, price, rating, _geo}. Text is Zipf-sampled
// from the generated vocabulary; the other fields are shaped for the later filter, facet, sort and geo
// workloads (skewed genres, recent years more common, ratings bunched around the middle, places
// clustered around cities).
import type { Dataset, DatasetSpec, BenchDocument } from './dataset.js';
import { SeededRandom, deriveSeed } from './seeded-random.js';
import { buildVocabulary } from './vocabulary.js';
import { ZipfSampler } from './zipf-sampler.js';

export const movieGenres = [
  'Drama', 'Comedy', 'Thriller', 'Action', 'Romance', 'Horror', 'Documentary', 'Crime', 'Adventure',
  'Science Fiction', 'Family', 'Fantasy', 'Mystery', 'Animation', 'History', 'Music', 'War', 'Western',
  'Biography', 'Sport',
] as const;

/** Centres the _geo points cluster around (lat, lng), so radius filters have dense and empty areas. */
export const movieCities: ReadonlyArray<readonly [number, number]> = [
  [48.8566, 2.3522], [51.5074, -0.1278], [40.7128, -74.006], [34.0522, -118.2437], [35.6762, 139.6503],
  [52.52, 13.405], [41.9028, 12.4964], [40.4168, -3.7038], [55.7558, 37.6173], [-33.8688, 151.2093],
  [19.4326, -99.1332], [-23.5505, -46.6333], [28.6139, 77.209], [39.9042, 116.4074], [1.3521, 103.8198],
  [30.0444, 31.2357], [-26.2041, 28.0473], [43.6532, -79.3832], [37.7749, -122.4194], [59.3293, 18.0686],
];

export interface MovieDocument extends BenchDocument {
  id: number;
  title: string;
  overview: string;
  genre: string;
  year: number;
  price: number;
  rating: number;
  _geo: { lat: number; lng: number };
}

const genreSampler = new ZipfSampler(movieGenres.length, 0.8);
const citySampler = new ZipfSampler(movieCities.length, 0.6);

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function roundTo(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

export function createMovieDataset(spec: DatasetSpec): Dataset {
  const vocabulary = buildVocabulary(spec.vocabularySize, deriveSeed(spec.seed, 'vocabulary'));
  const wordSampler = new ZipfSampler(vocabulary.length, spec.zipfExponent);
  const randomFor = (index: number, field: string) => new SeededRandom(deriveSeed(spec.seed, field, index));

  const words = (random: SeededRandom, count: number): string[] => {
    const out: string[] = [];
    for (let i = 0; i < count; i++) out.push(vocabulary[wordSampler.sample(random)]);
    return out;
  };

  const titleWords = (index: number): string[] => {
    const random = randomFor(index, 'title');
    return words(random, random.int(3, 8));
  };

  /** Sentences of 5-15 words with the odd comma, so crop/highlight workloads see real punctuation. */
  const overview = (index: number): string => {
    const random = randomFor(index, 'overview');
    const all = words(random, random.int(20, 60));
    let text = '';
    let sentenceStart = true;
    let sinceStop = 0;
    for (let i = 0; i < all.length; i++) {
      const last = i === all.length - 1;
      text += sentenceStart ? capitalize(all[i]) : all[i];
      sentenceStart = false;
      sinceStop++;
      if (last || (sinceStop >= 5 && random.chance(0.12))) {
        text += '.';
        sentenceStart = true;
        sinceStop = 0;
      } else if (random.chance(0.06)) {
        text += ',';
      }
      if (!last) text += ' ';
    }
    return text;
  };

  const documentAt = (index: number): MovieDocument => {
    const random = randomFor(index, 'fields');
    const [cityLat, cityLng] = movieCities[citySampler.sample(random)];
    // Squaring a uniform skews towards 0: recent years are more common, as in real catalogues.
    const yearsAgo = Math.floor(Math.pow(random.next(), 2) * 105);
    // Mean of three uniforms: a cheap bell curve for ratings.
    const bell = (random.next() + random.next() + random.next()) / 3;
    return {
      id: index,
      title: titleWords(index).map(capitalize).join(' '),
      overview: overview(index),
      genre: movieGenres[genreSampler.sample(random)],
      year: 2024 - yearsAgo,
      price: roundTo(0.99 + random.next() * 49, 2),
      rating: roundTo(1 + bell * 9, 1),
      _geo: {
        lat: roundTo(cityLat + (random.next() - 0.5), 5),
        lng: roundTo(cityLng + (random.next() - 0.5), 5),
      },
    };
  };

  return {
    spec,
    primaryKey: 'id',
    vocabulary,
    wordSampler,
    documentAt,
    queryableWordsAt: titleWords,
  };
}
