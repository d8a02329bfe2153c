// The uWebSockets.js module the front uses: @trufflesuite/uws-js-unofficial's native binary, with its
// HTTP header-name check patched to RFC 9110's token set. Every module imports uWS from here.
//
// Why: this build (uWS.js 20.30, the only one that loads on this glibc and Node 20: later builds need
// glibc 2.38's __isoc23_strtol) accepts only letters, digits and `-` in a header name. On any other
// byte its parser reports "incomplete" instead of an error, so a request with `X_Trace.Id: 1` (or any
// of `!#$%&'*+.^_`|~`, which clients and proxies send) was never answered: the connection sat until
// uWS's ~10 s timeout. uWebSockets fixed this upstream in v20.60 ("A field name is really a token").
//
// How: the patch below replaces the field-name scan inside the parser's getHeaders() (one out-of-line
// copy, shared by HTTP and HTTPS) with a byte loop that tests two 64-bit bitmaps of token bytes and
// lowercases A-Z only (the original ORed 0x20 into every byte, which turned `_` into DEL and `^`
// into `~`; uWS looks headers up by lowercase name). The rest of the function is untouched: a name
// that stops on anything but `:` is still refused as before. The bytes are written to a copy
// (`native/` in the repository, git-ignored; the installed package is never modified), built from
// the installed binary after checking its SHA-256, so a different binary fails loudly instead of
// being patched blind. `npm run build` makes the copy (and checks it); the first load makes it
// when missing. Measured: no change in CPU per request (a trivial uWS route under wrk with seven
// typical headers: 3.19 µs stock, 3.20 µs patched, mean of four alternating 5 s runs each).
//
// The replaced range, 0xeb490..0xeb599 of uws_linux_x64_115.node (file offset = address), held the
// SWAR word check (notFieldNameWord) and the byte loop (isFieldNameByte, `|= 0x20`); on entry r9 is
// the name's first byte and 0x8(%rsp) the header slot, which the code after 0xeb599 expects in rcx,
// with r9 on the byte after the name. Only rax, rcx, rdx, rsi are used (the original clobbered
// rax, rbx, rcx, rdx, rsi, rdi, rbp there). The new code, assembled at 0xeb490:
//
//     movabs $0x03ff6cfa00000000,%rsi   ; token bytes 0x00-0x3f: ! # $ % & ' * + - . 0-9
//     movabs $0x57ffffffc7fffffe,%rdx   ; token bytes 0x40-0x7f: A-Z ^ _ ` a-z | ~
//   next:
//     movzbl (%r9),%eax
//     cmp    $0x40,%eax
//     jae    high
//     bt     %rax,%rsi
//     jae    done                       ; not a token byte
//     inc    %r9
//     jmp    next
//   high:
//     cmp    $0x80,%eax
//     jae    done
//     bt     %rax,%rdx                  ; bit (byte - 0x40)
//     jae    done
//     lea    -0x41(%rax),%ecx
//     cmp    $0x1a,%ecx
//     jae    keep
//     orb    $0x20,(%r9)                ; A-Z to lowercase
//   keep:
//     inc    %r9
//     jmp    next
//   done:
//     mov    0x8(%rsp),%rcx
//     jmp    0xeb599
//
// and int3 up to 0xeb599 (nothing jumps into the range from outside it).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as UwsModule from '@trufflesuite/uws-js-unofficial';

export type Uws = typeof UwsModule;

export interface BinaryPatch {
  /** File name in the package's binaries/ folder. */
  binary: string;
  /** SHA-256 of the installed binary this patch is for. */
  sha256: string;
  /** SHA-256 of the result. */
  patchedSha256: string;
  /** Where the replaced range starts and ends (file offsets). */
  start: number;
  end: number;
  /** The range's original bytes (hex), checked before writing. */
  original: string;
  /** The new code (hex); the rest of the range is filled with int3. */
  code: string;
}

export const HEADER_NAME_PATCHES: readonly BinaryPatch[] = [
  {
    binary: 'uws_linux_x64_115.node',
    sha256: 'f158fb441f7e2e37b3ab9a56782fe37f4c0d33b5cd32e96ee5c0120ce7db7ced',
    patchedSha256: '2ee1f920c619f5130ef06ad372347b21250481bd209cceb7981745970ad635c9',
    start: 0xeb490,
    end: 0xeb599,
    original:
      '498b394889f848f7d04a8d341f4c21e04821c64889fb48b97f7f7f7f7f7f7f7f4821cb48baafafafafafafafaf4829da48b95252525252525252'
      + '4801d94821c24821ca48b9c0c0c0c0c0c0c0c04829d948bd46464646464646464801dd4821c14821e948bde0e0e0e0e0e0e0e04829dd4821c5'
      + '48b825252525252525254801c34821dd48b805050505050505054801f84809f84c21e04809f04809d04809c84809e8751948b8202020202020'
      + '20204809c74989394983c108e943ffffff89f824df04bf3c1a72144080ff2d740e8d47d03c097607488b4c2408eb2e488b4c24084080cf2041'
      + '8839410fb679014983c10189f824df04bf3c1a72e68d77d04080ff2d74dd4080fe0a72d7',
    code: '48be00000000fa6cff0348bafeffffc7ffffff57410fb60183f840730b480fa3c6732349ffc1ebec3d800000007317480fa3c273118d48bf'
      + '83f91a73044180092049ffc1ebce488b4c2408e9b9000000',
  },
];

const PACKAGE = '@trufflesuite/uws-js-unofficial';
/** Repository root, from dist/src/front/uws.js. */
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const PATCHED_DIR = join(REPO_ROOT, 'native');

/** The installed package's binary for this platform and Node ABI, and the patch for it if there is one. */
export function installedBinary(): { path: string; patch: BinaryPatch | null } {
  const require = createRequire(import.meta.url);
  const packageDir = dirname(require.resolve(`${PACKAGE}/package.json`));
  const binary = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  return { path: join(packageDir, 'binaries', binary), patch: HEADER_NAME_PATCHES.find((patch) => patch.binary === binary) ?? null };
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function checkSource(actual: string, patch: BinaryPatch, sourcePath: string): void {
  if (actual === patch.sha256) return;
  throw new Error(
    `${sourcePath} has SHA-256 ${actual}, the header-name patch (src/front/http/uws.ts) is for ${patch.sha256}: `
    + `the installed ${PACKAGE} differs from the one it was made for; redo the patch for this binary or pin the package`,
  );
}

/** Applies `patch` to the installed binary's bytes; throws if they are not the ones it was made for. */
export function patchBytes(source: Buffer, patch: BinaryPatch, sourcePath: string): Buffer {
  checkSource(sha256(source), patch, sourcePath);
  if (source.subarray(patch.start, patch.end).toString('hex') !== patch.original) throw new Error(`${sourcePath}: patched range differs`);
  const code = Buffer.from(patch.code, 'hex');
  const patched = Buffer.from(source);
  patched.fill(0xcc, patch.start, patch.end);
  code.copy(patched, patch.start);
  if (sha256(patched) !== patch.patchedSha256) throw new Error(`${sourcePath}: the patched binary's SHA-256 is not the expected one`);
  return patched;
}

/**
 * The path of the patched copy of the installed binary, written now if missing (to a temporary name,
 * then renamed: processes starting together never load a half-written file); null where no patch
 * exists for this platform and Node ABI.
 */
export function ensurePatchedBinary(): string | null {
  const { path, patch } = installedBinary();
  if (patch === null) return null;
  const source = readFileSync(path);
  const target = join(PATCHED_DIR, `${patch.binary.replace(/\.node$/, '')}.${patch.patchedSha256.slice(0, 16)}.node`);
  // Checked at every load: a stale copy must not outlive a change of the installed package.
  checkSource(sha256(source), patch, path);
  if (!existsSync(target)) {
    const patched = patchBytes(source, patch, path);
    mkdirSync(PATCHED_DIR, { recursive: true });
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, patched);
    renameSync(temporary, target);
  }
  return target;
}

function loadUws(): Uws {
  const require = createRequire(import.meta.url);
  const patched = ensurePatchedBinary();
  if (patched !== null) return require(patched) as Uws;
  process.emitWarning(
    `no header-name patch for ${PACKAGE} on ${process.platform}-${process.arch} with Node ABI ${process.versions.modules}: `
    + 'requests with `_`, `.` or other token characters but `-` in a header name get no answer',
  );
  return require(PACKAGE) as Uws;
}

const uws: Uws = loadUws();
export default uws;
