// postinstall: writes the patched uWS binary (native/, src/front/http/uws.ts) at install time, so a global
// install by root serves a user who cannot write into the package folder. Without dist/ (a fresh
// clone: `prepare` builds next, and the build writes it) there is nothing to do. Never fails the install:
// the server writes the copy at its first start anyway.
import { existsSync } from 'node:fs';

const uws = new URL('../dist/src/front/http/uws.js', import.meta.url);
if (existsSync(uws)) {
  try {
    const { ensurePatchedBinary } = await import(uws.href);
    ensurePatchedBinary();
  } catch (cause) {
    process.stderr.write(`skein postinstall: the patched uWS binary was not written now (${cause.message}); the server writes it at its first start\n`);
  }
}
