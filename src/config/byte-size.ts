// Human byte sizes as Meilisearch's `--http-payload-size-limit` takes them ("100 MB", "10MiB", "1Gb",
// "4096") and as its payload_too_large message prints them (byte-unit's exact-unit display).

const UNIT_FACTORS: Record<string, number> = {
  b: 1,
  k: 1000, kb: 1000, m: 1000 ** 2, mb: 1000 ** 2, g: 1000 ** 3, gb: 1000 ** 3, t: 1000 ** 4, tb: 1000 ** 4,
  ki: 1024, kib: 1024, mi: 1024 ** 2, mib: 1024 ** 2, gi: 1024 ** 3, gib: 1024 ** 3, ti: 1024 ** 4, tib: 1024 ** 4,
};

/**
 * Bytes in a size string. Units are case-insensitive and decimal unless they carry an `i`
 * (`MB` = 10^6, `MiB` = 2^20); a lowercase `b` means bytes too ("1Gb" = 1 GB), as byte-unit reads it.
 * Throws a plain Error on anything else: callers turn it into a startup failure.
 */
export function parseByteSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!match) throw new Error(`invalid size \`${text}\``);
  const factor = UNIT_FACTORS[match[2]!.toLowerCase() || 'b'];
  if (factor === undefined) throw new Error(`invalid size unit in \`${text}\``);
  const bytes = Math.round(Number(match[1]) * factor);
  if (!Number.isSafeInteger(bytes)) throw new Error(`size \`${text}\` is too large`);
  return bytes;
}

const DISPLAY_UNITS: Array<[string, number]> = [
  ['TiB', 1024 ** 4], ['TB', 1000 ** 4], ['GiB', 1024 ** 3], ['GB', 1000 ** 3],
  ['MiB', 1024 ** 2], ['MB', 1000 ** 2], ['KiB', 1024], ['KB', 1000],
];

/** The largest unit that divides the size exactly ("100 MB", "10 MiB", "3 B"). */
export function formatByteSize(bytes: number): string {
  for (const [name, factor] of DISPLAY_UNITS) {
    if (bytes >= factor && bytes % factor === 0) return `${bytes / factor} ${name}`;
  }
  return `${bytes} B`;
}
