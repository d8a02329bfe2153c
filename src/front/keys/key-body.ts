// Validation of POST /keys and PATCH /keys/{key} bodies (auth.md §4), with deserr's wording.
import { randomUUID } from 'node:crypto';
import { isGlobalOnlyAction, isKnownAction, isValidIndexPattern, KEY_ACTIONS, type KeyRecord } from '../../auth/index.js';
import { echo, SkeinError } from '../../errors/index.js';
import { formatMicros, parseDateOnlyMicros, parseRfc3339Micros } from '../../tasks/timestamps.js';
import { invalidValueType, isPlainObject, missingField, unknownField, unknownValue } from '../http/deserr-messages.js';

const CREATE_FIELDS = ['description', 'name', 'uid', 'actions', 'indexes', 'expiresAt'];
const PATCH_FIELDS = ['description', 'name'];
const IMMUTABLE = {
  uid: 'immutable_api_key_uid', actions: 'immutable_api_key_actions', indexes: 'immutable_api_key_indexes',
  expiresAt: 'immutable_api_key_expires_at', createdAt: 'immutable_api_key_created_at', updatedAt: 'immutable_api_key_updated_at',
} as const;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function isUuid(text: string): boolean {
  return UUID.test(text);
}

/** A new key record from a POST /keys body; `nowMillis` decides whether expiresAt is in the future. */
export function parseCreateKeyBody(body: unknown, now: string, nowMillis: number): KeyRecord {
  if (!isPlainObject(body)) throw invalidValueType('bad_request', '', 'an object', body);
  const record: Partial<KeyRecord> = { name: null, description: null };
  for (const [field, value] of Object.entries(body)) {
    switch (field) {
      case 'name': record.name = optionalString('invalid_api_key_name', field, value); break;
      case 'description': record.description = optionalString('invalid_api_key_description', field, value); break;
      case 'uid': record.uid = parseUid(value); break;
      case 'actions': record.actions = parseActions(value); break;
      case 'indexes': record.indexes = parseIndexes(value); break;
      case 'expiresAt': record.expiresAt = parseExpiresAt(value, nowMillis); break;
      default: throw unknownField(field, CREATE_FIELDS);
    }
  }
  if (record.actions === undefined) throw missingField('missing_api_key_actions', 'actions');
  if (record.indexes === undefined) throw missingField('missing_api_key_indexes', 'indexes');
  if (record.expiresAt === undefined) throw missingField('missing_api_key_expires_at', 'expiresAt');
  // As Meilisearch, an empty list counts as unrestricted here (such a key then reaches no index at all).
  if (record.indexes.length > 0 && !record.indexes.includes('*')) {
    const global = record.actions.find(isGlobalOnlyAction);
    if (global !== undefined) {
      const quoted = JSON.stringify(global);
      throw new SkeinError('index_scoped_api_key_with_global_action',
        `cannot create index-scoped API key with global action \`${quoted}\`\n  - Hint: remove action \`${quoted}\` from the action list, or remove \`indexes\` to make the key global`);
    }
  }
  return {
    uid: record.uid ?? randomUUID(), name: record.name!, description: record.description!,
    actions: record.actions, indexes: record.indexes, expiresAt: record.expiresAt, createdAt: now, updatedAt: now,
  };
}

/** The name/description changes of a PATCH body (absent = unchanged, null = cleared). */
export function parsePatchKeyBody(body: unknown): { name?: string | null; description?: string | null } {
  if (!isPlainObject(body)) throw invalidValueType('bad_request', '', 'an object', body);
  const patch: { name?: string | null; description?: string | null } = {};
  for (const [field, value] of Object.entries(body)) {
    if (field === 'name') patch.name = optionalString('invalid_api_key_name', field, value);
    else if (field === 'description') patch.description = optionalString('invalid_api_key_description', field, value);
    else if (Object.hasOwn(IMMUTABLE, field)) {
      throw new SkeinError(IMMUTABLE[field as keyof typeof IMMUTABLE],
        `Immutable field \`${field}\`: expected one of ${PATCH_FIELDS.map((f) => `\`${f}\``).join(', ')}`);
    } else throw unknownField(field, PATCH_FIELDS);
  }
  return patch;
}

function optionalString(code: 'invalid_api_key_name' | 'invalid_api_key_description', field: string, value: unknown): string | null {
  if (value === null || typeof value === 'string') return value;
  throw invalidValueType(code, `.${field}`, 'a string', value);
}

function parseUid(value: unknown): string {
  if (typeof value !== 'string') throw invalidValueType('invalid_api_key_uid', '.uid', 'a string', value);
  if (!isUuid(value)) {
    throw new SkeinError('invalid_api_key_uid', `Invalid value at \`.uid\`: \`${echo(String(value))}\` is not a valid UUID (expected 8-4-4-4-12 hexadecimal digits).`);
  }
  return value.toLowerCase();
}

function parseActions(value: unknown): string[] {
  if (!Array.isArray(value)) throw invalidValueType('invalid_api_key_actions', '.actions', 'an array', value);
  return value.map((action, i) => {
    if (typeof action !== 'string') throw invalidValueType('invalid_api_key_actions', `.actions[${i}]`, 'a string', action);
    if (!isKnownAction(action)) throw unknownValue('invalid_api_key_actions', `.actions[${i}]`, action, KEY_ACTIONS);
    return action;
  });
}

function parseIndexes(value: unknown): string[] {
  if (!Array.isArray(value)) throw invalidValueType('invalid_api_key_indexes', '.indexes', 'an array', value);
  return value.map((pattern, i) => {
    if (typeof pattern !== 'string') throw invalidValueType('invalid_api_key_indexes', `.indexes[${i}]`, 'a string', pattern);
    if (!isValidIndexPattern(pattern)) {
      throw new SkeinError('invalid_api_key_indexes',
        `Invalid value at \`.indexes[${i}]\`: \`${pattern}\` is not a valid index uid pattern. Index uid patterns can be an integer or a string containing only alphanumeric characters, hyphens (-) and underscores (_), and can not be more than 512 bytes.`);
    }
    return pattern;
  });
}

/** RFC 3339, `YYYY-MM-DDTHH:MM:SS`, `YYYY-MM-DD HH:MM:SS` or `YYYY-MM-DD` (UTC); strictly in the future. */
export function parseExpiresAt(value: unknown, nowMillis: number): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') throw invalidValueType('invalid_api_key_expires_at', '.expiresAt', 'a string', value);
  const micros = parseDateOnlyMicros(value) ?? parseRfc3339Micros(value) ?? parseRfc3339Micros(`${value}Z`);
  if (micros === null || micros <= nowMillis * 1000) {
    throw new SkeinError('invalid_api_key_expires_at',
      `Invalid value at \`.expiresAt\`: \`${value}\` is not a valid date. It should follow the RFC 3339 format to represents a date or datetime in the future or specified as a null value. e.g. 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS'.`);
  }
  const text = formatMicros(micros);
  return text.endsWith('.000000Z') ? `${text.slice(0, -8)}Z` : text;
}
