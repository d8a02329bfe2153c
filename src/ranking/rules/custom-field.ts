// `field:asc` / `field:desc` ranking rules: parsed here, applied as a SortRule (sort.ts) over the
// shard's order of the field (numbers first, then strings; missing last), see rules-from-settings.ts.

export interface CustomFieldRuleSpec {
  field: string;
  direction: 'asc' | 'desc';
}

const CUSTOM_RULE = /^(.+):(asc|desc)$/;

export function parseCustomFieldRule(name: string): CustomFieldRuleSpec | null {
  const match = CUSTOM_RULE.exec(name);
  return match ? { field: match[1]!, direction: match[2] as 'asc' | 'desc' } : null;
}
