// facet-patterns.ts resolves `facets` through an index of the filterable rules (plain entries by name,
// pattern rules in order) instead of a pass over every rule per facet and per field (999 facets against
// 999 plain entries of 400 characters took a shard 1.5 s + 1 s per search). Held here to the plain
// definition (each rule in order: ruleMatches / ruleIntersects, milli's match_pattern) on random settings,
// facets and fields.
import test from 'ava';
import { SeededRandom } from '../../bench/seeded-random.js';
import { checkFacetPatterns, filterableRulesOf, isFacetedBy, matchPattern, ruleIntersects, ruleMatches, selectFacetFields } from '../../src/filter/facet-patterns.js';

type Rule = ReturnType<typeof filterableRulesOf>[number];
const isFilterable = (rules: Rule[], name: string): boolean => rules.find((rule) => ruleMatches(rule, name))?.filterable === true;

/** The plain checkFacetPatterns: the first facet no filterable rule intersects, and the rule refusing it (or -1). */
function referenceRefusal(facets: string[], rules: Rule[]): string | null {
  for (const facet of facets) {
    let refusedBy = -1;
    let valid = false;
    for (let k = 0; k < rules.length; k++) {
      const rule = rules[k]!;
      if (rule.filterable) {
        if (ruleIntersects(rule, facet)) {
          valid = true;
          break;
        }
      } else if (ruleMatches(rule, facet)) {
        refusedBy = k;
        break;
      }
    }
    if (!valid) return refusedBy >= 0 ? `Attribute \`${facet}\` matched rule #${refusedBy}` : `Pattern \`${facet}\` is not filterable`;
  }
  return null;
}

function referenceSelection(facets: string[], fields: string[], rules: Rule[]): string[] {
  const names = fields.filter((name) => isFilterable(rules, name));
  const keys = names.filter((name) => facets.some((facet) => matchPattern(facet, name) === 'match'));
  return names.filter((name) => keys.some((key) => isFacetedBy(name, key)));
}

test('checkFacetPatterns and selectFacetFields agree with the rule-by-rule definition on random settings', (t) => {
  const random = new SeededRandom(22);
  const word = (max: number): string => {
    let out = '';
    for (let k = random.int(1, max); k > 0; k--) out += 'ab.*'[random.int(0, 3)];
    return out;
  };
  for (let round = 0; round < 600; round++) {
    const setting: unknown[] = Array.from({ length: random.int(0, 6) }, () => random.chance(0.5) ? word(4)
      : { attributePatterns: Array.from({ length: random.int(1, 3) }, () => word(4)), features: { filter: { equality: random.chance(0.7) } } });
    const rules = filterableRulesOf(setting);
    const facets = Array.from({ length: random.int(1, 4) }, () => word(4));
    const fields = [...new Set(Array.from({ length: random.int(0, 12) }, () => word(5).replace(/\*/g, 'b')))];
    const expected = referenceRefusal(facets, rules);
    let actual: string | null = null;
    try {
      checkFacetPatterns(facets, rules);
    } catch (cause) {
      actual = (cause as Error).message;
    }
    const label = JSON.stringify({ setting, facets });
    if (expected === null) t.is(actual, null, label);
    else t.true(actual !== null && actual.includes(expected), `${label}: ${actual} / ${expected}`);
    t.deepEqual(selectFacetFields(facets, fields, rules), referenceSelection(facets, fields, rules), `${label} ${JSON.stringify(fields)}`);
  }
});
