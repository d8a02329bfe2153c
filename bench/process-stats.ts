// Memory and CPU of a process from Linux /proc, read without touching the process itself.
import { readFileSync } from 'node:fs';

/** USER_HZ: Linux reports /proc/<pid>/stat times in 1/100 s on every mainstream architecture. */
const clockTicksPerSecond = 100;

export interface MemoryStats {
  /** Resident set size now (VmRSS). */
  rssBytes: number;
  /** Peak resident set size since the process started (VmHWM). */
  peakRssBytes: number;
}

function statusField(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/** null when the process is gone or /proc is unavailable. */
export function readMemory(pid: number): MemoryStats | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { rssBytes: statusField(status, 'VmRSS'), peakRssBytes: statusField(status, 'VmHWM') };
  } catch {
    return null;
  }
}

/** User + system CPU seconds the process (all its threads) has used so far; null if unreadable. */
export function readCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: split after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, i.e. 11 and 12 after the name.
    return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond;
  } catch {
    return null;
  }
}
