// search-on-names.ts against the plain definition (attribute-patterns.ts matchesSearchOnName, milli's
// match_pattern, one name against one field): sets, binary searches over sorted prefixes and suffixes
// (the descent past a non-matching neighbour) and the `*mid*` loop must select exactly what it selects.
import test from 'ava';
import { SeededRandom } from '../../bench/seeded-random.js';
import { matchesSearchOnName } from '../../src/filter/attribute-patterns.js';
import { FieldNames, MAX_CONTAINS_WORK, SearchOnNames } from '../../src/filter/search-on-names.js';

function word(random: SeededRandom, alphabet: string, max: number): string {
  let out = '';
  for (let k = random.int(0, max); k > 0; k--) out += alphabet[random.int(0, alphabet.length - 1)];
  return out;
}

test('selects (field by field) and nameMatchesAny (name by name) agree with match_pattern on random names and fields', (t) => {
  const random = new SeededRandom(468);
  for (let round = 0; round < 400; round++) {
    const fields = Array.from({ length: random.int(1, 30) }, () => word(random, 'ab.*', 6));
    const names = Array.from({ length: random.int(1, 12) }, () => {
      const core = word(random, 'ab.*', 5);
      const shape = random.int(0, 3);
      return shape === 0 ? core : shape === 1 ? `*${core}` : shape === 2 ? `${core}*` : `*${core}*`;
    });
    const matcher = new SearchOnNames(names);
    const known = new FieldNames(fields);
    for (const field of [...fields, ...Array.from({ length: 10 }, () => word(random, 'ab.', 7))]) {
      t.is(matcher.selects(field), names.some((name) => matchesSearchOnName(name, field)), `${JSON.stringify(names)} selects ${JSON.stringify(field)}`);
    }
    for (const name of names) {
      t.is(matcher.nameMatchesAny(name, known), fields.some((field) => matchesSearchOnName(name, field)), `${JSON.stringify(name)} against ${JSON.stringify(fields)}`);
    }
  }
});

test('the `*mid*` work is bounded: known before any matching on the front, counted as it goes in a shard', (t) => {
  const fields = Array.from({ length: 999 }, (_, k) => `${'a'.repeat(396)}${String(k).padStart(4, '0')}`);
  const names = Array.from({ length: 1000 }, (_, k) => `*${'a'.repeat(396)}${1000 + k}*`);
  const matcher = new SearchOnNames(names);
  t.true(matcher.containsWorkAgainst(new FieldNames(fields)) > MAX_CONTAINS_WORK);
  t.is(new SearchOnNames(names.slice(0, 20)).containsWorkAgainst(new FieldNames(fields)), 20 * 999 * 400);
  const error = t.throws(() => fields.forEach((field) => matcher.selects(field)));
  t.regex(error!.message, /more than the 12000000 characters/);
  // a field shorter than every middle costs nothing
  t.false(new SearchOnNames(names).selects('short'));
});
