// POST /swap-indexes: `[{ "indexes": ["a", "b"], "rename": false }, ...]` -> one indexSwap task
// (src/scheduler/operations/index-swap.ts). Checked as Meilisearch's route does: the body's shape (deserr
// wording), then per pair its length and the key's reach to both indexes, then duplicates (at
// registration in Meilisearch: the same 400). Missing indexes fail the task, not the request.
import { canSeeIndex } from '../../auth/access.js';
import { echo, SkeinError } from '../../errors/index.js';
import { checkSwapDuplicates } from '../../tasks/task-indexes.js';
import type { IndexSwapPair } from '../../tasks/task-record.js';
import { invalidValueType, isPlainObject } from '../http/deserr-messages.js';
import { jsonReply } from '../http/http-types.js';
import { invalidIndexUid, isValidIndexUid } from './index-uid.js';
import type { RouteSpec } from '../http/route-spec.js';

const SWAP_FIELDS = ['indexes', 'rename'];

export const swapIndexesRoutes: RouteSpec[] = [
  {
    method: 'POST', path: '/swap-indexes', action: 'indexes.swap', body: 'json',
    handle: async (request, context) => {
      const swaps = parseSwaps(request.json);
      for (const { indexes } of swaps) {
        if (indexes.length !== 2) {
          throw new SkeinError('invalid_swap_indexes', `Two indexes must be given for each swap. The list \`[${indexes.map((uid) => `"${echo(uid)}"`).join(', ')}]\` contains ${indexes.length} indexes.`);
        }
        if (!indexes.every((uid) => canSeeIndex(request.access, uid))) throw new SkeinError('invalid_api_key', 'The provided API key is invalid.');
      }
      const pairs = swaps as IndexSwapPair[];
      checkSwapDuplicates(pairs);
      return jsonReply(202, await context.scheduler.enqueue({ type: 'indexSwap', swaps: pairs }));
    },
  },
];

function parseSwaps(body: unknown): { indexes: string[]; rename: boolean }[] {
  if (!Array.isArray(body)) throw invalidValueType('bad_request', '.', 'an array', body);
  return body.map((element, position) => {
    const path = `[${position}]`;
    if (!isPlainObject(element)) throw invalidValueType('bad_request', path, 'an object', element);
    for (const field of Object.keys(element)) {
      if (!SWAP_FIELDS.includes(field)) {
        throw new SkeinError('bad_request', `Unknown field \`${echo(field)}\` inside \`${path}\`: expected one of ${SWAP_FIELDS.map((name) => `\`${name}\``).join(', ')}`);
      }
    }
    if (!('indexes' in element)) throw new SkeinError('missing_swap_indexes', `Missing field \`indexes\` inside \`${path}\``);
    const indexes = element.indexes;
    if (!Array.isArray(indexes)) throw invalidValueType('invalid_swap_indexes', `${path}.indexes`, 'an array', indexes);
    indexes.forEach((uid, at) => {
      if (typeof uid !== 'string') throw invalidValueType('invalid_swap_indexes', `${path}.indexes[${at}]`, 'a string', uid);
      if (!isValidIndexUid(uid)) throw new SkeinError('invalid_swap_indexes', `Invalid value at \`${path}.indexes[${at}]\`: ${invalidIndexUid(uid).message}`);
    });
    const rename = 'rename' in element ? element.rename : false;
    if (typeof rename !== 'boolean') throw invalidValueType('invalid_swap_rename', `${path}.rename`, 'a boolean', rename);
    return { indexes: indexes as string[], rename };
  });
}
