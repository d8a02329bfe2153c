// Index uid rule: [A-Za-z0-9_-], 1 to 400 bytes (the message says 512, as Meilisearch's does).
import { echo, SkeinError } from '../../errors/index.js';

const INDEX_UID_PATTERN = /^[A-Za-z0-9_-]{1,400}$/;

export function isValidIndexUid(uid: string): boolean {
  return INDEX_UID_PATTERN.test(uid);
}

export function invalidIndexUid(uid: string): SkeinError {
  return new SkeinError('invalid_index_uid',
    `\`${echo(uid)}\` is not a valid index uid. Index uid can be an integer or a string containing only alphanumeric characters, hyphens (-) and underscores (_), and can not be more than 512 bytes.`);
}

export function validateIndexUid(uid: string): string {
  if (!isValidIndexUid(uid)) throw invalidIndexUid(uid);
  return uid;
}
