// attributesToSearchOn against the fields the index has, as milli's SearchContext::attributes_to_search_on
// checks it (v1.50): with explicit searchableAttributes, a name passes when it is a searchable field of the
// index's fields ids map (nested paths included: `details.title`; never a path no document held), a name
// with `*` matching one, or an entry of the setting itself; else the error lists the searchable fields
// that are displayed (exact names, as remove_hidden_fields), sorted. The shards know their own documents
// only, so the front checks against IndexRecord.knownFields (kept by the scheduler) and tells the shards
// to skip their own check (ShardSearchOptions.attributesToSearchOnChecked); the search still runs first,
// so the errors the shards raise keep their place before this one.
import { echo, SkeinError } from '../../errors/index.js';
import { matchesSearchOnName, PatternSet } from '../../filter/attribute-patterns.js';
import { compareCodePoints } from '../../filter/facet-value.js';
import type { IndexRecord } from '../../storage/records.js';

/** Whether the front checks this index's attributesToSearchOn (else the shards check it against the settings alone). */
export function frontChecksSearchOn(record: IndexRecord, names: readonly string[] | null | undefined): boolean {
  return Array.isArray(names) && !!record.knownFields && !record.settings.searchableAttributes.includes('*');
}

/** The error the list raises on this index (`uid`: the ``Index `uid`: `` prefix a search gives, null for none), or null. */
export function searchOnErrorOf(record: IndexRecord, uid: string | null, names: readonly string[] | null | undefined): SkeinError | null {
  if (!frontChecksSearchOn(record, names)) return null;
  const searchable = record.settings.searchableAttributes;
  const selectors = new PatternSet(searchable);
  const fields = Object.keys(record.knownFields!).filter((field) => selectors.matches(field));
  const exact = new Set(fields);
  for (const name of names!) {
    if (name === '*' || exact.has(name) || searchable.includes(name)) continue;
    if (name.includes('*') && fields.some((field) => matchesSearchOnName(name, field))) continue;
    const displayed = record.settings.displayedAttributes;
    const valid = (displayed.includes('*') ? fields : fields.filter((field) => displayed.includes(field))).sort(compareCodePoints);
    const hidden = fields.length > valid.length;
    const message = `Attribute \`${echo(name)}\` is not searchable. Available searchable attributes are: \`${valid.join(', ')}${hidden ? ', <..hidden-attributes>' : ''}\`.`;
    return new SkeinError('invalid_search_attributes_to_search_on', uid === null ? message : `Index \`${uid}\`: ${message}`);
  }
  return null;
}
