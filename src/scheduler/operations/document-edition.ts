// POST /indexes/{uid}/documents/edit (the documentEdition task, Meilisearch's edit documents by
// function): the filter picks the documents (checked against filterableAttributes now, as
// deletion by filter), the Rhai function (src/documents/edit-function) runs on each, and the edited
// documents replace the stored ones, `doc = ()` deletes. Runs while the batch is planned, on the task's
// fork of the staged index: any error fails the task whole. Every document's run is bounded by the
// interpreter's operations budget; between documents the thread answers enqueues every SLICE_MS and
// a cancelation stops the batch.
import { documentIdOf } from '../../documents/document-id.js';
import { compileEditFunction, contextValue, DocumentMustBeObject, editDocument, RhaiRuntimeError, RhaiSyntaxError } from '../../documents/edit-function/index.js';
import { parseExactJson } from '../../documents/exact-json.js';
import { checkGeoFields, geoChecksOf } from '../../documents/geo-field.js';
import { SkeinError } from '../../errors/index.js';
import type { TaskContent } from '../../tasks/task-record.js';
import { documentsMatchingFilter } from './delete-by-filter.js';
import { applyDocumentDeletion, replaceDocument } from './document-operations.js';
import { requireIndex } from './index-operations.js';
import type { StagedIndex } from '../batching/staged-index.js';

type DocumentEdition = Extract<TaskContent, { type: 'documentEdition' }>;

/** Work between two turns of the event loop (enqueues wait at most about this long for their 202). */
const SLICE_MS = 20;

export interface EditionHooks {
  /** Throws when the batch was canceled meanwhile. */
  checkAbort?: () => void;
}

/**
 * Returns the task's counts. As Meilisearch (process_index_operation.rs), both editedDocuments and
 * deletedDocuments are the number of documents the filter matched, whatever the function did to them.
 */
export async function applyDocumentEdition(stage: StagedIndex, content: DocumentEdition, hooks: EditionHooks = {}): Promise<{ editedDocuments: number; deletedDocuments: number }> {
  const record = requireIndex(stage);
  // Ids only: each text is read when its turn comes (an index's texts are not all held at once).
  const matched = content.filter == null ? [...stage.liveExternalIds()] : documentsMatchingFilter(stage, content.filter);
  if (matched.length === 0) return { editedDocuments: 0, deletedDocuments: 0 };
  const uid = stage.uid;
  const fail = (message: string, code: 'edit_documents_by_function_error' = 'edit_documents_by_function_error') => new SkeinError(code, `Index \`${uid}\`: ${message}`);
  let program;
  try {
    program = compileEditFunction(content.function);
  } catch (cause) {
    if (cause instanceof RhaiSyntaxError) throw fail(`Document edition runtime error encountered while compiling the function: ${cause.message}`);
    throw cause;
  }
  const context = contextValue(content.context);
  const primaryKey = record.primaryKey!;
  const geoChecks = geoChecksOf(record.settings);
  const deleted: string[] = [];
  let sliceStart = performance.now();
  for (const [externalId, docId] of matched) {
    const text = stage.document(docId);
    if (text === undefined) continue;
    let outcome;
    try {
      outcome = editDocument(program, text, context);
    } catch (cause) {
      if (cause instanceof RhaiRuntimeError) throw fail(`Document edition runtime error encountered while running the function: ${cause.message}`);
      if (cause instanceof DocumentMustBeObject) throw fail(cause.message);
      throw cause;
    }
    if (outcome.kind === 'deleted') deleted.push(externalId);
    else if (outcome.kind === 'edited') {
      const document = parseExactJson(outcome.text) as Record<string, unknown>;
      let newId: string;
      try {
        newId = documentIdOf(document, primaryKey);
      } catch (cause) {
        if (cause instanceof SkeinError) throw new SkeinError(cause.code, `Index \`${uid}\`: ${cause.message}`);
        throw cause;
      }
      if (newId !== externalId) throw fail('Document editions cannot modify a document\'s primary key');
      checkGeoFields(document, externalId, uid, geoChecks);
      replaceDocument(stage, externalId, docId, text, outcome.text);
    }
    if (performance.now() - sliceStart >= SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      hooks.checkAbort?.();
      sliceStart = performance.now();
    }
  }
  applyDocumentDeletion(stage, deleted);
  return { editedDocuments: matched.length, deletedDocuments: matched.length };
}
