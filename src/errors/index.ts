export { ERROR_CODES, type ErrorCode, type ErrorType } from './codes.js';
export { SkeinError, errorBody, asSkeinError, fromBody, type ErrorBody } from './skein-error.js';
export { echo, echoJson, truncateText, ECHO_MAX_CHARS, ERROR_MESSAGE_MAX_CHARS } from './echo.js';
