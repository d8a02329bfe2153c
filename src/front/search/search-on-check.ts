// attributesToSearchOn against the fields the index has, as milli's SearchContext::attributes_to_search_on
// checks it: with explicit searchableAttributes, a name must be a searchable field of the index's fields
// ids map (nested paths included: `details.title`, never a path no document held), a name with `*` must
// match one; the error lists those fields, the displayed ones, sorted. The shards know their own
// documents only, so the front checks against IndexRecord.knownFields (kept by the scheduler); the
// search still runs first, so the errors the shards raise before this one keep their place.
import { echo, SkeinError } from '../../errors/index.js';
import { matchesPattern, PatternSet } from '../../filter/attribute-patterns.js';
import { compareCodePoints } from '../../filter/facet-value.js';
import type { IndexRecord } from '../../storage/records.js';

const CODE = 'invalid_search_attributes_to_search_on';

/** The error the list raises on this index (`uid`: the ``Index `uid`: `` prefix a search gives, null for none), or null. */
export function searchOnErrorOf(record: IndexRecord, uid: string | null, names: readonly string[] | null | undefined): SkeinError | null {
  const known = record.knownFields;
  const searchable = record.settings.searchableAttributes;
  if (!names || !known || searchable.includes('*')) return null;
  const selectors = new PatternSet(searchable);
  const fields = Object.keys(known).filter((field) => selectors.matches(field));
  for (const name of names) {
    if (name === '*') continue;
    // (a plain name also passes when a field lies inside it: `details.outfit` for `details.outfit.has_cape`)
    if (fields.some((field) => matchesPattern(name, field))) continue;
    const displayed = record.settings.displayedAttributes;
    const shown = displayed.includes('*') ? fields : fields.filter((field) => new PatternSet(displayed).matches(field));
    const valid = shown.sort(compareCodePoints);
    const hidden = fields.length > valid.length;
    const message = `Attribute \`${echo(name)}\` is not searchable. Available searchable attributes are: \`${valid.join(', ')}${hidden ? ', <..hidden-attributes>' : ''}\`.`;
    return new SkeinError(CODE, uid === null ? message : `Index \`${uid}\`: ${message}`);
  }
  return null;
}

/** A catch for the search: the shards' own attributesToSearchOn error (named by the settings alone) gives way to `pending`. */
export function preferSearchOnError(pending: SkeinError | null): (cause: unknown) => never {
  return (cause) => {
    if (pending !== null && cause instanceof SkeinError && cause.code === CODE) throw pending;
    throw cause;
  };
}
