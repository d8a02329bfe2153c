// POST /indexes/{uid}/documents/edit: Meilisearch's experimental edit documents by function (the
// `editDocumentsByFunction` feature). The front checks the body, the feature, the function's syntax
// and the filter's syntax, then enqueues a documentEdition task; the scheduler runs the function
// (src/scheduler/operations/document-edition.ts). Key action `documents.*`: as Meilisearch's
// ActionPolicy<DOCUMENTS_ALL>, only a key holding `*` reaches it (`documents.*` grants add/get/delete).
import { compileEditFunction, RhaiSyntaxError } from '../../documents/edit-function/index.js';
import { requireContainsFeature } from '../../storage/experimental-features.js';
import { SkeinError } from '../../errors/index.js';
import { parseFilterParameter } from '../../filter/filter-input.js';
import { refuseForeign } from '../search/foreign-filter.js';
import { requireFeature } from '../../storage/experimental-features.js';
import { denyUnknownFields, invalidValueType, isPlainObject, missingField } from '../http/deserr-messages.js';
import { jsonReply } from '../http/http-types.js';
import { validateIndexUid } from './index-uid.js';
import { checkFilterSize, checkTextLength, REQUEST_LIMITS } from '../http/request-limits.js';
import type { RouteSpec } from '../http/route-spec.js';
import { customMetadata } from '../tasks/task-annotations.js';

const FIELDS = ['filter', 'context', 'function'] as const;

export const documentsEditRoutes: RouteSpec[] = [
  {
    method: 'POST', path: '/indexes/{indexUid}/documents/edit', action: 'documents.*', body: 'json',
    handle: async (request, context) => {
      // The body first (Meilisearch's extractor runs before the handler), in deserr's order.
      const body = request.json;
      if (!isPlainObject(body)) throw invalidValueType('bad_request', '.', 'an object', body);
      denyUnknownFields(body, FIELDS);
      if (body.function !== undefined && typeof body.function !== 'string') {
        throw invalidValueType('invalid_document_edition_function_filter', '.function', 'a string', body.function);
      }
      if (body.function === undefined) throw missingField('missing_document_edition_function', 'function');
      const source = body.function;
      requireFeature(context.storage.meta, 'editDocumentsByFunction', 'Using the documents edit route', 'edit documents by function',
        'https://github.com/orgs/meilisearch/discussions/762');
      const uid = validateIndexUid(request.params.indexUid!);
      checkTextLength('invalid_document_edition_function_filter', { kind: 'body', path: '.function' }, source, REQUEST_LIMITS.editFunctionChars);
      try {
        compileEditFunction(source);
      } catch (cause) {
        if (cause instanceof RhaiSyntaxError) throw new SkeinError('bad_request', cause.message);
        throw cause;
      }
      const filter = body.filter ?? null;
      if (filter !== null) {
        checkFilterSize('invalid_document_filter', { kind: 'body', path: '.filter' }, filter);
        let node;
        try {
          node = parseFilterParameter(filter, 'invalid_document_filter');
        } catch (cause) {
          // parse_local_index_filter(.., Some(index_uid), ..): the message names the index.
          if (cause instanceof SkeinError) throw new SkeinError(cause.code, `Index \`${uid}\`: ${cause.message}`);
          throw cause;
        }
        if (node === null) throw new SkeinError('invalid_document_filter', 'Sending an empty filter is forbidden.');
        try {
          requireContainsFeature(context.storage.meta, filter);
          refuseForeign(context, node, 'invalid_document_filter');
        } catch (cause) {
          if (cause instanceof SkeinError) throw new SkeinError(cause.code, `Index \`${uid}\`: ${cause.message}`);
          throw cause;
        }
      }
      const editContext = body.context ?? null;
      if (editContext !== null && !isPlainObject(editContext)) {
        throw new SkeinError('invalid_document_edition_context', 'The context must be an object');
      }
      return jsonReply(202, await context.scheduler.enqueue({
        type: 'documentEdition', indexUid: uid, filter, context: editContext, function: source, ...customMetadata(request.query),
      }));
    },
  },
];
