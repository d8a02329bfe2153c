// Edit documents by function (POST /indexes/{uid}/documents/edit): Meilisearch runs a Rhai script per
// document; this is a hand-written interpreter of the Rhai subset such scripts use (README.md here).
// compileEditFunction runs on the front (a syntax error is the request's 400) and in the scheduler;
// editDocument runs on the scheduler thread, once per matched document, within RhaiLimits.
import { DEFAULT_RHAI_LIMITS, Evaluation, RhaiRuntimeError, type RhaiLimits } from './evaluate.js';
import { parseProgram, RhaiSyntaxError, type Program } from './parse.js';
import { documentText, jsonText, valueFromJson, valueFromParsedJson, type RMap, type Value } from './values.js';

export { DEFAULT_RHAI_LIMITS, RhaiRuntimeError, RhaiSyntaxError, type Program, type RhaiLimits };

/** Throws RhaiSyntaxError (its message is Rhai's ParseError display). */
export function compileEditFunction(source: string): Program {
  return parseProgram(source);
}

/** `doc` set to something neither a map nor () (Meilisearch's DocumentEditionDocumentMustBeObject). */
export class DocumentMustBeObject extends Error {
  constructor() {
    super('Document editions must keep documents as objects');
  }
}

export type EditOutcome = { kind: 'unchanged' } | { kind: 'deleted' } | { kind: 'edited'; text: string; document: RMap };

/** The request's context object as the script's constant `context` (null: no context given). */
export function contextValue(context: Record<string, unknown> | null | undefined): Value | undefined {
  return context == null ? undefined : valueFromParsedJson(context);
}

/**
 * Runs the program with `doc` = the stored document (and `context`, a constant, when given).
 * Throws RhaiRuntimeError or DocumentMustBeObject.
 */
export function editDocument(program: Program, storedText: string, context: Value | undefined, limits: RhaiLimits = DEFAULT_RHAI_LIMITS): EditOutcome {
  const original = valueFromJson(storedText) as RMap;
  const originalOrder = [...original.keys()];
  const before = documentText(original, originalOrder);
  const evaluation = new Evaluation(program, limits);
  // The context is shared by every document: it is a constant, and values taken from it are copies.
  if (context !== undefined) evaluation.define('context', context, true);
  evaluation.define('doc', original, false);
  evaluation.run();
  const after = evaluation.variable('doc');
  if (after === null) return { kind: 'deleted' };
  if (!(after instanceof Map)) throw new DocumentMustBeObject();
  const text = documentText(after, originalOrder);
  return text === before ? { kind: 'unchanged' } : { kind: 'edited', text, document: after };
}

export { jsonText };
