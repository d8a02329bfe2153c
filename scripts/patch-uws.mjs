// Run by `npm run build` after tsc: writes the uWS binary with the header-name patch into native/
// (src/front/http/uws.ts says why and how), or fails loudly if the installed binary is not the one the
// patch was made for. The server also writes the copy at its first start when it is missing.
import { ensurePatchedBinary, installedBinary } from '../dist/src/front/http/uws.js';

const patched = ensurePatchedBinary();
process.stdout.write(patched === null
  ? `patch-uws: no header-name patch for ${installedBinary().path}; header names are limited to letters, digits and -\n`
  : '');
