// Which addresses a request to a /network remote may reach (Meilisearch's `--experimental-allowed-ip-networks`,
// its http-client IpPolicy): global addresses always; a non-global one (loopback, private, link-local,
// shared, documentation, reserved... as Rust's `is_global`) only inside a listed network; `any` allows
// everything. Without the option every non-global address is refused, as in Meilisearch. Checked on
// the URL's address and on every address a host name resolves to (remote-post.ts), so a name cannot
// lead to an internal address either. Pure; one IpPolicy per server (its RemoteClient owns it).
import { isIP } from 'node:net';

interface Network {
  family: 4 | 6;
  base: bigint;
  prefix: number;
}

export class IpPolicy {
  private constructor(private readonly allowAll: boolean, private readonly networks: readonly Network[]) {}

  /** `--experimental-allowed-ip-networks`: CIDRs (`10.0.0.0/8`, `fd00::/8`), plain addresses, or `any`. Throws on a bad entry. */
  static fromList(list: readonly string[]): IpPolicy {
    const networks: Network[] = [];
    for (const entry of list) {
      if (entry === 'any') return new IpPolicy(true, []);
      networks.push(parseNetwork(entry));
    }
    return new IpPolicy(false, networks);
  }

  /** May a request reach this address (a literal IPv4 or IPv6 address)? */
  allows(address: string): boolean {
    if (this.allowAll) return true;
    const parsed = parseAddress(address);
    if (parsed === null) return false;
    if (isGlobal(parsed.family, parsed.value)) return true;
    return this.networks.some((network) => network.family === parsed.family && inNetwork(network, parsed.value));
  }
}

/** An address or `address/prefix`; throws an Error naming the entry. */
function parseNetwork(entry: string): Network {
  const [address, prefixText, extra] = entry.split('/');
  const parsed = address === undefined ? null : parseAddress(address);
  const bits = parsed?.family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (parsed === null || extra !== undefined || !(prefix >= 0 && prefix <= bits)) {
    throw new Error(`\`${entry.slice(0, 64)}\` is not an IP network (expected \`any\`, an address or \`address/prefix\`)`);
  }
  const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(bits - prefix);
  return { family: parsed.family, base: parsed.value & mask, prefix };
}

function inNetwork(network: Network, value: bigint): boolean {
  const bits = network.family === 4 ? 32 : 128;
  const shift = BigInt(bits - network.prefix);
  return network.prefix === 0 || (value >> shift) === (network.base >> shift);
}

/** A literal address as a number (IPv6 in brackets allowed); an IPv4-mapped IPv6 address counts as its IPv4 one, as Meilisearch's URL check. */
export function parseAddress(text: string): { family: 4 | 6; value: bigint } | null {
  const address = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const family = isIP(address);
  if (family === 4) return { family: 4, value: ipv4Value(address) };
  if (family !== 6) return null;
  const value = ipv6Value(address);
  if (value >> 32n === 0xffffn) return { family: 4, value: value & 0xffffffffn };
  return { family: 6, value };
}

function ipv4Value(address: string): bigint {
  return address.split('.').reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n);
}

function ipv6Value(address: string): bigint {
  let text = address.split('%')[0]!;
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    // An embedded IPv4 address (`::ffff:10.0.0.1`): its two groups.
    const v4 = Number(ipv4Value(last));
    text = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, rest] = text.includes('::') ? text.split('::') as [string, string] : [text, null];
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const left = groups(head);
  const right = rest === null ? [] : groups(rest);
  const all = rest === null ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

/** Rust's Ipv4Addr / Ipv6Addr `is_global`, as Meilisearch's policy spells them out. */
function isGlobal(family: 4 | 6, value: bigint): boolean {
  return family === 4 ? isGlobal4(Number(value)) : isGlobal6(value);
}

function isGlobal4(value: number): boolean {
  const [a, b, c, d] = [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
  return !(a === 0 // this network
    || a === 10 || (a === 172 && (b & 0xf0) === 16) || (a === 192 && b === 168) // private
    || (a === 100 && (b & 0xc0) === 64) // shared
    || a === 127 // loopback
    || (a === 169 && b === 254) // link-local
    || (a === 192 && b === 0 && c === 0 && d !== 9 && d !== 10) // protocol assignments
    || (a === 192 && b === 0 && c === 2) || (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113) // documentation
    || (a === 198 && (b & 0xfe) === 18) // benchmarking
    || a >= 240); // reserved and broadcast
}

function isGlobal6(value: bigint): boolean {
  const segment = (k: number) => Number((value >> BigInt(16 * (7 - k))) & 0xffffn);
  const [s0, s1, s2] = [segment(0), segment(1), segment(2)];
  const protocolAssignments = s0 === 0x2001 && s1 < 0x200
    && !(value === 0x2001_0001_0000_0000_0000_0000_0000_0001n || value === 0x2001_0001_0000_0000_0000_0000_0000_0002n
      || s1 === 3 || (s1 === 4 && s2 === 0x112) || (s1 >= 0x20 && s1 <= 0x3f));
  return !(value === 0n || value === 1n // unspecified, loopback
    || value >> 32n === 0xffffn // IPv4-mapped
    || (s0 === 0x64 && s1 === 0xff9b && s2 === 1) // IPv4-IPv6 translation
    || (s0 === 0x100 && s1 === 0 && s2 === 0 && segment(3) === 0) // discard-only
    || protocolAssignments
    || s0 === 0x2002 // 6to4
    || (s0 === 0x2001 && s1 === 0xdb8) || (s0 === 0x3fff && s1 <= 0x0fff) // documentation
    || s0 === 0x5f00 // segment routing
    || (s0 & 0xfe00) === 0xfc00 // unique local
    || (s0 & 0xffc0) === 0xfe80); // link-local
}
