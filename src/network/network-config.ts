// The network (issue 23, Meilisearch's /network): this node's name, the remotes it knows and the shard
// groups (`shards`: a name → the remotes that keep its documents). Runs on the main thread; one
// NetworkConfig per server owns the value, kept in <db-path>/network.json (written whole, then
// renamed). Synchronous as Meilisearch before network tasks: a PATCH answers the merged network.
//
// Where Skein differs: there is no write leader (any node takes writes through the task log, so
// `leader` is stored and shown only); the group names a document addition is split over travel in
// its task-log message, so every node places documents alike even while their configurations
// differ; changing `shards` in cluster mode publishes a networkTopologyChange task that moves the
// documents (network-routes.ts, scheduler/operations/network-move.ts).
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SkeinError, echo, type ErrorCode } from '../errors/index.js';
import { invalidValueType, isPlainObject, unknownField } from '../front/http/deserr-messages.js';

export interface Remote {
  url: string;
  searchApiKey: string | null;
  writeApiKey: string | null;
}

export interface NetworkValue {
  self: string | null;
  remotes: Record<string, Remote>;
  shards: Record<string, { remotes: string[] }>;
  leader: string | null;
  version: string;
}

const FILE = 'network.json';
const EMPTY_VERSION = '00000000-0000-0000-0000-000000000000';
const NETWORK_FIELDS = ['remotes', 'shards', 'previousShards', 'self', 'leader', 'previousRemotes'];
const REMOTE_FIELDS = ['url', 'searchApiKey', 'writeApiKey'];
const SHARD_FIELDS = ['remotes', 'addRemotes', 'removeRemotes'];
/** Names and lists a PATCH may carry (request-limits.ts's spirit: every size a request controls is bounded). */
const MAX_NAME = 512;
const MAX_ENTRIES = 1000;

export class NetworkConfig {
  private value: NetworkValue;

  constructor(private readonly dbPath: string) {
    this.value = readNetwork(join(dbPath, FILE));
  }

  get current(): NetworkValue {
    return this.value;
  }

  /** The shard group names, sorted (empty: no sharding). */
  get groupNames(): string[] {
    return Object.keys(this.value.shards).sort();
  }

  /** The group whose remotes include `self` (null: none, or no self). */
  get ownGroup(): string | null {
    const self = this.value.self;
    if (self === null) return null;
    for (const name of this.groupNames) if (this.value.shards[name]!.remotes.includes(self)) return name;
    return null;
  }

  /** PATCH /network: validated whole before anything changes; returns the merged network, stored. */
  patch(body: unknown): NetworkValue {
    const next = mergeNetwork(this.value, body);
    next.version = randomUUID();
    const path = join(this.dbPath, FILE);
    writeFileSync(`${path}.partial`, JSON.stringify(next));
    renameSync(`${path}.partial`, path);
    this.value = next;
    return next;
  }
}

function readNetwork(path: string): NetworkValue {
  if (!existsSync(path)) return { self: null, remotes: {}, shards: {}, leader: null, version: EMPTY_VERSION };
  return JSON.parse(readFileSync(path, 'utf8')) as NetworkValue;
}

function nullableString(value: unknown, code: ErrorCode, path: string): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') throw invalidValueType(code, path, 'a string', value);
  if (value.length > MAX_NAME) throw new SkeinError(code, `Invalid value at \`${path}\`: longer than ${MAX_NAME} characters.`);
  return value;
}

function stringList(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) throw invalidValueType('invalid_network_shards', path, 'an array', value);
  if (value.length > MAX_ENTRIES) throw new SkeinError('invalid_network_shards', `Invalid value at \`${path}\`: more than ${MAX_ENTRIES} items.`);
  return value.map((item, i) => {
    if (typeof item !== 'string') throw invalidValueType('invalid_network_shards', `${path}[${i}]`, 'a string', item);
    return item;
  });
}

function checkedUrl(value: string, path: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SkeinError('invalid_network_url', `Invalid value at \`${path}\`: \`${echo(value)}\` is not a valid URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SkeinError('invalid_network_url', `Invalid value at \`${path}\`: the URL's scheme must be \`http\` or \`https\`, not \`${echo(url.protocol.slice(0, -1))}\`.`);
  }
  return value;
}

/** Meilisearch's merge: absent = unchanged, null = removed/reset, a value = set (remote fields merged one by one). */
export function mergeNetwork(old: NetworkValue, body: unknown): NetworkValue {
  if (!isPlainObject(body)) throw invalidValueType('bad_request', '', 'an object', body);
  for (const name of Object.keys(body)) if (!NETWORK_FIELDS.includes(name)) throw unknownField(name, NETWORK_FIELDS);
  const next: NetworkValue = {
    self: old.self, remotes: { ...old.remotes }, shards: structuredClone(old.shards), leader: old.leader, version: old.version,
  };
  if (body.self !== undefined) next.self = nullableString(body.self, 'invalid_network_self', '.self');
  if (body.leader !== undefined) next.leader = nullableString(body.leader, 'invalid_network_leader', '.leader');
  if (body.remotes === null) next.remotes = {};
  else if (body.remotes !== undefined) {
    if (!isPlainObject(body.remotes)) throw invalidValueType('invalid_network_remotes', '.remotes', 'an object', body.remotes);
    if (Object.keys(body.remotes).length > MAX_ENTRIES) throw new SkeinError('invalid_network_remotes', `Invalid value at \`.remotes\`: more than ${MAX_ENTRIES} remotes.`);
    for (const [name, patch] of Object.entries(body.remotes)) {
      if (name.length > MAX_NAME) throw new SkeinError('invalid_network_remotes', `Invalid value at \`.remotes\`: a remote name is longer than ${MAX_NAME} characters.`);
      if (patch === null) {
        delete next.remotes[name];
        continue;
      }
      next.remotes[name] = mergeRemote(name, old.remotes[name], patch);
    }
  }
  if (body.shards === null) next.shards = {};
  else if (body.shards !== undefined) {
    if (!isPlainObject(body.shards)) throw invalidValueType('invalid_network_shards', '.shards', 'an object', body.shards);
    if (Object.keys(body.shards).length > MAX_ENTRIES) throw new SkeinError('invalid_network_shards', `Invalid value at \`.shards\`: more than ${MAX_ENTRIES} shards.`);
    for (const [name, patch] of Object.entries(body.shards)) {
      const path = `.shards.${echo(name)}`;
      if (name.length > MAX_NAME) throw new SkeinError('invalid_network_shards', `Invalid value at \`.shards\`: a shard name is longer than ${MAX_NAME} characters.`);
      if (patch === null) {
        delete next.shards[name];
        continue;
      }
      if (!isPlainObject(patch)) throw invalidValueType('invalid_network_shards', path, 'an object', patch);
      for (const field of Object.keys(patch)) if (!SHARD_FIELDS.includes(field)) throw unknownField(field, SHARD_FIELDS, 'invalid_network_shards');
      let remotes = new Set(next.shards[name]?.remotes ?? []);
      if (patch.remotes !== undefined && patch.remotes !== null) remotes = new Set(stringList(patch.remotes, `${path}.remotes`));
      if (patch.addRemotes !== undefined && patch.addRemotes !== null) for (const one of stringList(patch.addRemotes, `${path}.addRemotes`)) remotes.add(one);
      if (patch.removeRemotes !== undefined && patch.removeRemotes !== null) for (const one of stringList(patch.removeRemotes, `${path}.removeRemotes`)) remotes.delete(one);
      next.shards[name] = { remotes: [...remotes] };
    }
  }
  // A removed remote leaves every shard; a shard may only name known remotes.
  const removed = new Set(Object.keys(old.remotes).filter((remote) => !Object.hasOwn(next.remotes, remote)));
  for (const [name, shard] of Object.entries(next.shards)) {
    shard.remotes = shard.remotes.filter((remote) => !removed.has(remote));
    for (const remote of shard.remotes) {
      if (!Object.hasOwn(next.remotes, remote)) {
        throw new SkeinError('invalid_network_shards', `Invalid value at \`.shards.${echo(name)}.remotes\`: remote \`${echo(remote)}\` is not part of the network's \`.remotes\`.`);
      }
    }
    if (shard.remotes.length === 0) {
      throw new SkeinError('invalid_network_shards', `Invalid value at \`.shards.${echo(name)}\`: a shard must have at least one remote.`);
    }
  }
  return next;
}

function mergeRemote(name: string, old: Remote | undefined, patch: unknown): Remote {
  const path = `.remotes.${echo(name)}`;
  if (!isPlainObject(patch)) throw invalidValueType('invalid_network_remotes', path, 'an object', patch);
  for (const field of Object.keys(patch)) if (!REMOTE_FIELDS.includes(field)) throw unknownField(field, REMOTE_FIELDS, 'invalid_network_remotes');
  let url = old?.url;
  if (patch.url === null) {
    throw new SkeinError('invalid_network_url', `Field \`${path}.url\` cannot be set to \`null\``);
  }
  if (patch.url !== undefined) {
    if (typeof patch.url !== 'string') throw invalidValueType('invalid_network_url', `${path}.url`, 'a string', patch.url);
    url = checkedUrl(patch.url, `${path}.url`);
  }
  if (url === undefined) throw new SkeinError('missing_network_url', `Missing field \`${path}.url\``);
  const key = (field: 'searchApiKey' | 'writeApiKey', code: ErrorCode): string | null => {
    const value = patch[field];
    if (value === undefined) return old?.[field] ?? null;
    return nullableString(value, code, `${path}.${field}`);
  };
  return { url, searchApiKey: key('searchApiKey', 'invalid_network_search_api_key'), writeApiKey: key('writeApiKey', 'invalid_network_write_api_key') };
}
