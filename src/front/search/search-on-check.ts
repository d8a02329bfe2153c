// attributesToSearchOn against the fields the index has, as milli's SearchContext::attributes_to_search_on
// checks it (v1.50): with explicit searchableAttributes, a name passes when it is a searchable field of the
// index's fields ids map (nested paths included: `details.title`; never a path no document held), a name
// with `*` matching one, or an entry of the setting itself; else the error lists the searchable fields
// that are displayed (exact names, as remove_hidden_fields), sorted. The shards know their own documents
// only, so the front checks against IndexRecord.knownFields (kept by the scheduler) and tells the shards
// to skip their own check (ShardSearchOptions.attributesToSearchOnChecked); the search still runs first,
// so the errors the shards raise keep their place before this one.
// Names are matched through search-on-names.ts (sets and binary searches; `*mid*` names bounded in work
// before any matching), so no list holds the front.
import { echo, SkeinError } from '../../errors/index.js';
import { PatternSet } from '../../filter/attribute-patterns.js';
import { compareCodePoints } from '../../filter/facet-value.js';
import { FieldNames, MAX_CONTAINS_WORK, SearchOnNames, tooMuchContainsWork } from '../../filter/search-on-names.js';
import type { IndexRecord } from '../../storage/records.js';

/** Whether the front checks this index's attributesToSearchOn (else the shards check it against the settings alone). */
export function frontChecksSearchOn(record: IndexRecord, names: readonly string[] | null | undefined): boolean {
  return Array.isArray(names) && !!record.knownFields && !record.settings.searchableAttributes.includes('*');
}

/**
 * The error the list raises on this index (`uid`: the ``Index `uid`: `` prefix a search gives, null for none), or null.
 * Throws at once when its `*mid*` names would cost more than MAX_CONTAINS_WORK against the index's fields.
 */
export function searchOnErrorOf(record: IndexRecord, uid: string | null, names: readonly string[] | null | undefined): SkeinError | null {
  if (!frontChecksSearchOn(record, names)) {
    // No name is refused (searchableAttributes `*`), but the shards' matching of `*mid*` names is bounded all the same.
    if (Array.isArray(names) && record.knownFields && names.some((name) => name.length > 1 && name.startsWith('*') && name.endsWith('*'))) {
      const matcher = new SearchOnNames(names);
      if (matcher.containsWorkAgainst(new FieldNames(Object.keys(record.knownFields))) > MAX_CONTAINS_WORK) throw tooMuchContainsWork(matcher.containsNames);
    }
    return null;
  }
  const searchable = record.settings.searchableAttributes;
  const selectors = new PatternSet(searchable);
  const fields = Object.keys(record.knownFields!).filter((field) => selectors.matches(field));
  const known = new FieldNames(fields);
  const matcher = new SearchOnNames(names!);
  // (thrown at once: a Skein bound, before the shards spend anything on the names)
  if (matcher.containsWorkAgainst(known) > MAX_CONTAINS_WORK) throw tooMuchContainsWork(matcher.containsNames);
  const entries = new Set(searchable);
  const checked = new Set<string>();
  for (const name of names!) {
    if (checked.has(name)) continue;
    checked.add(name);
    if (entries.has(name) || matcher.nameMatchesAny(name, known)) continue;
    const displayed = record.settings.displayedAttributes;
    const shown = new Set(displayed);
    const valid = (shown.has('*') ? fields : fields.filter((field) => shown.has(field))).sort(compareCodePoints);
    const hidden = fields.length > valid.length;
    const message = `Attribute \`${echo(name)}\` is not searchable. Available searchable attributes are: \`${valid.join(', ')}${hidden ? ', <..hidden-attributes>' : ''}\`.`;
    return new SkeinError('invalid_search_attributes_to_search_on', uid === null ? message : `Index \`${uid}\`: ${message}`);
  }
  return null;
}
