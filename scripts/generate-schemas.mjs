// Regenerates src/protocol/generated from schemas/*.fbs with flatc (Debian: flatbuffers-compiler 2.0.8).
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';

const out = 'src/protocol/generated';
rmSync(out, { recursive: true, force: true });
const schemas = readdirSync('schemas').filter((f) => f.endsWith('.fbs')).map((f) => `schemas/${f}`);
execFileSync('flatc', ['--ts', '--ts-flat-files', '-o', out, ...schemas], { stdio: 'inherit' });
console.log(`generated ${out} from ${schemas.join(', ')}`);
