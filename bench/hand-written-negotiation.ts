// The Accept-Encoding negotiation src/front/http/response-compression.ts had before negotiator, kept as the
// micro-benchmark's baseline (bench/front-libraries-micro.ts) and the unit test's reference.
import type { ResponseEncoding } from '../src/front/http/response-compression.js';

const PREFERENCE: readonly ResponseEncoding[] = ['gzip', 'br', 'deflate'];

/**
 * The encoding to answer with, or null for identity. Honours q-values (`gzip;q=0` refuses gzip) and
 * `*`; on equal quality the PREFERENCE order decides.
 */
export function handWrittenNegotiateEncoding(acceptEncoding: string | null): ResponseEncoding | null {
  if (!acceptEncoding) return null;
  const quality = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [rawName, ...params] = part.trim().split(';');
    const name = rawName!.trim().toLowerCase();
    if (name === '') continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.trim().split('=');
      if (key?.trim().toLowerCase() === 'q') q = Number(value);
    }
    quality.set(name, Number.isFinite(q) ? q : 0);
  }
  let best: ResponseEncoding | null = null;
  let bestQuality = 0;
  for (const encoding of PREFERENCE) {
    const q = quality.get(encoding) ?? quality.get('*') ?? 0;
    if (q > bestQuality) {
      best = encoding;
      bestQuality = q;
    }
  }
  return best;
}
