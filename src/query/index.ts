export { parseQuery, parseQueryParts, type ParsedQuery, MAX_QUERY_TERMS, MAX_QUERY_TOKENS, type QueryParseOptions } from './parse-query.js';
export { positionCount, type QueryTerm, type WordTerm, type PhraseTerm } from './query-term.js';
export { typoBudget, typoPolicyOf, type TypoPolicy } from './typo-budget.js';
