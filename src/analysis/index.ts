export { normalizeWord } from './normalize.js';
export { CharClass, defaultClassifier, HARD_DISTANCE, SOFT_DISTANCE, type CharClassifier } from './separators.js';
export { segment, tokenize, isIndexableWord, MAX_WORD_BYTES, MAX_POSITION, type Segment, type Token } from './tokenizer.js';
export { analyzeDocument, type FieldTokens, type DocumentAnalysisOptions } from './document-tokens.js';
