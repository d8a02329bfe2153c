export { ERROR_CODES, type ErrorCode, type ErrorType } from './codes.js';
export { SkeinError, errorBody, asSkeinError, fromBody, type ErrorBody } from './skein-error.js';
