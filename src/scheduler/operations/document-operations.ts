// Document additions, updates and deletions applied to a staged index. Each function works on the
// fork of one task and throws the SkeinError that fails that task; the caller discards the fork then.
import { isAscii } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { composeDocId, shardOf } from '../../documents/doc-ids.js';
import { ownValue, setOwn } from '../../documents/own-fields.js';
import { documentIdOf } from '../../documents/document-id.js';
import { documentJson, JsonNumberText, parseExactJson, parseStoredJson } from '../../documents/exact-json.js';
import { checkGeoFields, geoChecksOf, type GeoChecks } from '../../documents/geo-field.js';
import { resolvePrimaryKey } from '../../documents/primary-key.js';
import { rendezvousGroup } from '../../documents/shard-group.js';
import { SkeinError } from '../../errors/index.js';
import type { IndexRecord } from '../../storage/records.js';
import type { TaskContent } from '../../tasks/task-record.js';
import { requireIndex } from './index-operations.js';
import type { StagedIndex } from '../batching/staged-index.js';

type DocumentAddition = Extract<TaskContent, { type: 'documentAdditionOrUpdate' }>;
type Document = Record<string, unknown>;

type StagedDocument = { text: string; document: Document };

/**
 * Planning a task of many documents takes a while (~10 us a document): every `sliceSize` documents
 * it awaits `pause` (a turn of the event loop), so the scheduler thread answers enqueues meanwhile.
 */
export interface Slicing {
  sliceSize: number;
  pause: () => Promise<void>;
}

/**
 * Reads the task's NDJSON update file (one JSON object per non-empty line, kept with its text) and
 * applies it with applyDocumentAddition slice by slice, pausing between slices; returns
 * indexedDocuments. A slice's parsed documents go once it is applied: holding every parsed document
 * of a large task until the end had them survive garbage collections and fill the old generation.
 * (The decoder wrote the file from valid JSON, so a malformed line is a damaged file: it fails the
 * task when its slice is reached.)
 */
export async function applyUpdateFile(stage: StagedIndex, content: DocumentAddition, updateFilesDir: string, slicing: Slicing): Promise<number> {
  const lines = updateFileLines(updateFilesDir, content.updateFile);
  let applied = 0;
  let slice: StagedDocument[] = [];
  // Slice by slice: ids are still checked in order, and a failure discards the task's fork whole.
  for (let i = 0; i < lines.length; i++) {
    parseUpdateLine(lines[i]!, slice);
    if (slice.length < slicing.sliceSize) continue;
    applied += applyDocumentAddition(stage, content, slice);
    slice = [];
    await slicing.pause();
  }
  // An empty payload still goes through applyDocumentAddition (a given primary key is checked and stored).
  if (slice.length > 0 || applied === 0) applied += applyDocumentAddition(stage, content, slice);
  return applied;
}

/**
 * The update file's lines, each decoded alone: an ASCII line as a one-byte string (latin1), another as
 * UTF-8. Read as one UTF-8 string, a file with a single line that is not ASCII became a two-byte string
 * (10 ms more per 10,000 npm rows to decode, and slower to parse, store and send on after); the decoder
 * wrote the file from valid UTF-8, a line at a time.
 */
function updateFileLines(updateFilesDir: string, name: string): string[] {
  let content: Buffer;
  try {
    content = readFileSync(join(updateFilesDir, name));
  } catch (cause) {
    throw new SkeinError('internal', `Update file \`${name}\` could not be read: ${(cause as Error).message}`);
  }
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    let end = content.indexOf(NEWLINE, start);
    if (end < 0) end = content.length;
    if (end > start) lines.push(isAscii(content.subarray(start, end)) ? content.toString('latin1', start, end) : content.toString('utf8', start, end));
    if (end >= content.length) return lines;
    start = end + 1;
  }
}

const NEWLINE = 0x0a;

function parseUpdateLine(line: string, out: StagedDocument[]): void {
  const text = line.trim();
  if (text === '') return;
  let document: unknown;
  try {
    // A line the decoder marked (update-file-writer.ts: EXACT_NUMBERS_MARK) holds numbers JavaScript
    // would rewrite: they keep their literal (JsonNumberText), and the id is read from it.
    document = line.charCodeAt(0) === 0x20 ? parseExactJson(text) : JSON.parse(text);
  } catch (cause) {
    throw new SkeinError('malformed_payload', `The \`ndjson\` payload provided is malformed. \`${(cause as Error).message}\`.`);
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new SkeinError('malformed_payload', 'The `ndjson` payload provided is malformed. `data are neither an object nor a list of objects`.');
  }
  out.push({ text, document: document as Document });
}

/** POST (replace) or PUT (update: merge top-level fields) of the payload; returns indexedDocuments. */
export function applyDocumentAddition(stage: StagedIndex, content: DocumentAddition, documents: StagedDocument[]): number {
  const record = stage.record!;
  if (documents.length === 0) {
    // An empty payload succeeds; a given primary key is still checked and stored (Meilisearch's add_no_documents).
    if (content.primaryKey !== null) record.primaryKey = resolvePrimaryKey(record.primaryKey, content.primaryKey, undefined);
    return 0;
  }
  const primaryKey = resolvePrimaryKey(record.primaryKey, content.primaryKey, documents[0].document);
  // Validate every id first: one bad document fails the task with nothing of it applied.
  const ids = documents.map(({ document }) => documentIdOf(document, primaryKey));
  record.primaryKey = primaryKey;
  const geoChecks = geoChecksOf(record.settings);
  let indexed = 0;
  // Cluster sharding: every line advances the sequence on every node, kept or not, so a document's
  // internal id (ties' order) is the same in every group as in one node holding them all.
  const groups = content.shardGroups && content.shardGroups.own !== null && content.shardGroups.names.length > 0 ? content.shardGroups : null;
  for (let i = 0; i < documents.length; i++) {
    const externalId = ids[i];
    const lineSeq = groups ? record.nextSeq++ : -1;
    if (groups && rendezvousGroup(externalId, groups.names) !== groups.own) {
      // Checked on every node, so the task fails alike everywhere (on the document as sent).
      checkGeoFields(documents[i].document, externalId, stage.uid, geoChecks);
      continue;
    }
    const existingDocId = stage.docIdOf(externalId);
    if (existingDocId === undefined && content.skipCreation === true) continue;
    indexed++;
    const previousText = existingDocId === undefined ? undefined : stage.document(existingDocId);
    // A replacement only counts the previous document's fields; an update merges its values, numbers as written.
    const previous = previousText === undefined ? undefined
      : ((content.method === 'update' ? parseStoredJson(previousText) : JSON.parse(previousText)) as Document);
    let text = documents[i].text;
    const merged = content.method === 'update' && previous !== undefined ? { ...previous, ...documents[i].document } : null;
    if (merged !== null) text = documentJson(merged);
    // As milli's geo extractor, on the document as stored (an update's merged one); a failure fails the task whole.
    checkGeoFields(merged ?? documents[i].document, externalId, stage.uid, geoChecks);
    const docId = existingDocId ?? (groups ? composeDocId(lineSeq, shardOf(externalId, record.shardCount), record.shardCount) : newDocId(record, externalId));
    if (previous !== undefined) {
      countFields(record, previous, -1);
      record.rawDocumentDbSize -= Buffer.byteLength(previousText!);
    } else record.documentCount++;
    record.rawDocumentDbSize += Buffer.byteLength(text);
    countFields(record, content.method === 'update' && previous !== undefined ? (JSON.parse(text) as Document) : documents[i].document, +1);
    stage.putDocument(externalId, docId, text);
  }
  return indexed;
}

/**
 * A document another shard group gave this node (a topology change, network-move.ts), with the
 * internal id it has in every group: as stored there, counts and sizes follow. Idempotent.
 */
export function importDocument(stage: StagedIndex, externalId: string, docId: number, text: string): void {
  const record = requireIndex(stage);
  const existing = stage.docIdOf(externalId);
  if (existing !== undefined) removeDocument(stage, record, externalId, existing);
  record.documentCount++;
  record.rawDocumentDbSize += Buffer.byteLength(text);
  countFields(record, JSON.parse(text) as Document, +1);
  stage.putDocument(externalId, docId, text);
}

/** Replaces a stored document's text (same external id and docId): field counts and sizes follow. */
export function replaceDocument(stage: StagedIndex, externalId: string, docId: number, previousText: string, text: string): void {
  const record = requireIndex(stage);
  countFields(record, JSON.parse(previousText) as Document, -1);
  countFields(record, JSON.parse(text) as Document, +1);
  record.rawDocumentDbSize += Buffer.byteLength(text) - Buffer.byteLength(previousText);
  stage.putDocument(externalId, docId, text);
}

/** Every live document's `_geo` / `_geojson`, checked when a settings update enables them; the first invalid one throws. */
export function checkGeoOfDocuments(stage: StagedIndex, checks: GeoChecks): void {
  for (const [externalId, docId] of stage.liveExternalIds()) {
    const text = stage.document(docId);
    if (text === undefined || !text.includes('"_geo')) continue;
    checkGeoFields(parseStoredJson(text) as Document, externalId, stage.uid, checks);
  }
}

/** Deletion by external ids; unknown ids are skipped. Returns deletedDocuments. */
export function applyDocumentDeletion(stage: StagedIndex, ids: readonly string[]): number {
  const record = requireIndex(stage);
  let deleted = 0;
  for (const externalId of new Set(ids)) {
    const docId = stage.docIdOf(externalId);
    if (docId === undefined) continue;
    removeDocument(stage, record, externalId, docId);
    deleted++;
  }
  return deleted;
}

/** DELETE /documents: every document of the index. Returns deletedDocuments. */
export function applyClear(stage: StagedIndex): number {
  const record = requireIndex(stage);
  let deleted = 0;
  for (const [externalId, docId] of stage.liveExternalIds()) {
    stage.deleteDocument(externalId, docId);
    deleted++;
  }
  record.documentCount = 0;
  record.rawDocumentDbSize = 0;
  record.fieldDistribution = {};
  return deleted;
}

function removeDocument(stage: StagedIndex, record: IndexRecord, externalId: string, docId: number): void {
  const text = stage.document(docId);
  if (text !== undefined) {
    countFields(record, JSON.parse(text) as Document, -1);
    record.rawDocumentDbSize -= Buffer.byteLength(text);
  }
  record.documentCount--;
  stage.deleteDocument(externalId, docId);
}

function newDocId(record: IndexRecord, externalId: string): number {
  const shard = shardOf(externalId, record.shardCount);
  return composeDocId(record.nextSeq++, shard, record.shardCount);
}

/**
 * fieldDistribution counts the top-level fields of the stored documents, as milli computes it from
 * the unflattened document (a nested object counts once, under its top-level name).
 */
function countFields(record: IndexRecord, document: Document, delta: 1 | -1): void {
  const distribution = record.fieldDistribution;
  for (const field of Object.keys(document)) {
    const count = (ownValue(distribution, field) ?? 0) + delta;
    if (count > 0) setOwn(distribution, field, count);
    else delete distribution[field];
  }
  if (delta === 1) rememberFields(record, document);
}

/** Field names past which an index stops listing them (IndexRecord.knownFields: null, and attributesToSearchOn goes unchecked). */
const MAX_KNOWN_FIELDS = 1000;

/** Adds the document's field names, top-level and nested (flattened paths), to record.knownFields (absent in older records, null past the bound: nothing). */
function rememberFields(record: IndexRecord, document: Document): void {
  const known = record.knownFields;
  if (!known) return;
  let added = 0;
  const add = (name: string): void => {
    if (ownValue(known, name) === undefined) {
      setOwn(known, name, true);
      added++;
    }
  };
  // As milli flattens: an object's keys under its path, an array's items under the array's own path.
  const visit = (path: string, value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) visit(path, item);
    else if (value !== null && typeof value === 'object' && !(value instanceof JsonNumberText)) for (const [key, inner] of Object.entries(value)) visit(`${path}.${key}`, inner);
    else add(path);
  };
  for (const [field, value] of Object.entries(document)) {
    add(field);
    if (value !== null && typeof value === 'object' && !(value instanceof JsonNumberText)) visit(field, value);
  }
  if (added > 0 && Object.keys(known).length > MAX_KNOWN_FIELDS) record.knownFields = null;
}
