// Builds the preview page (src/preview/) into dist/src/preview/: its TypeScript with its own tsconfig
// (DOM types, no Node types), and its HTML and CSS copied as they are. Part of `npm run build`.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src/preview');
const out = join(root, 'dist/src/preview');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

execFileSync(process.execPath, [tsc, '-p', join(source, 'tsconfig.json')], { stdio: 'inherit' });
mkdirSync(out, { recursive: true });
for (const file of ['index.html', 'preview.css']) copyFileSync(join(source, file), join(out, file));
