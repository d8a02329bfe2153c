// The uWS header-name patch: made only from the binary it was written for, and the result is the
// expected one. (test/http/process-edges.test.ts checks what it does to requests.)
import { readFileSync } from 'node:fs';
import test from 'ava';
import { ensurePatchedBinary, HEADER_NAME_PATCHES, installedBinary, patchBytes } from '../../src/front/http/uws.js';

const { path, patch } = installedBinary();

test('the installed binary of this platform has a patch, and the copy in use is the patched one', (t) => {
  if (patch === null) {
    t.pass(`no patch for ${path}`);
    return;
  }
  const patchedPath = ensurePatchedBinary();
  t.truthy(patchedPath);
  // equals(), not deepEqual: ava's diffing of 6.8 MB buffers takes half a minute.
  t.true(readFileSync(patchedPath!).equals(patchBytes(readFileSync(path), patch, path)));
});

test('a binary that differs by one byte is refused, naming both checksums', (t) => {
  const known = HEADER_NAME_PATCHES[0]!;
  if (patch === null) {
    t.pass(`no patch for ${path}`);
    return;
  }
  const other = Buffer.from(readFileSync(path));
  other[other.length - 1] ^= 1;
  t.throws(() => patchBytes(other, known, 'x.node'), { message: new RegExp(`x\\.node has SHA-256 [0-9a-f]{64}, the header-name patch .* is for ${known.sha256}`) });
});
