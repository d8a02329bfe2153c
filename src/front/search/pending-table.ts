// The searches sent to the workers and not answered yet, by request id. Not a Map: a JS Map whose
// keys come and go (the ids only grow) kept what it had deleted reachable until its table was
// rebuilt, so each search's record, its answers and their hits outlived young-generation GCs and
// were promoted. At 64 connections the front's scavenges copied ~1.2 MB and promoted ~1 MB each
// (~3 ms pauses holding every answer in flight, and a mark-compact every second or two); with this
// table ~170 KB and nothing promoted (pauses ~1 ms, no mark-compact in 8 s).
//
// Ids are handed out in order, so the live ones span a short range: a slot per id modulo a power of
// two, and the table doubles when a new id would land on a slot still held (more searches
// outstanding than slots, or one far older than the rest).

interface Slot<T> {
  id: number;
  value: T;
}

export class PendingTable<T> {
  private slots: (Slot<T> | undefined)[];
  private count = 0;

  constructor(initialSlots = 1024) {
    this.slots = new Array<Slot<T> | undefined>(initialSlots).fill(undefined);
  }

  get size(): number {
    return this.count;
  }

  get(id: number): T | undefined {
    const slot = this.slots[this.indexOf(id)];
    return slot !== undefined && slot.id === id ? slot.value : undefined;
  }

  /** Holds value under id; an id already held is replaced. */
  set(id: number, value: T): void {
    let index = this.indexOf(id);
    let held = this.slots[index];
    while (held !== undefined && held.id !== id) {
      this.grow();
      index = this.indexOf(id);
      held = this.slots[index];
    }
    if (held === undefined) this.count++;
    this.slots[index] = { id, value };
  }

  delete(id: number): void {
    const index = this.indexOf(id);
    const slot = this.slots[index];
    if (slot === undefined || slot.id !== id) return;
    this.slots[index] = undefined;
    this.count--;
  }

  /** Every entry, then none (the table is left empty). */
  drain(): Array<[number, T]> {
    const entries: Array<[number, T]> = [];
    for (const slot of this.slots) if (slot !== undefined) entries.push([slot.id, slot.value]);
    this.slots.fill(undefined);
    this.count = 0;
    return entries;
  }

  private indexOf(id: number): number {
    return id & (this.slots.length - 1);
  }

  /** Doubles until every held id has a slot of its own. */
  private grow(): void {
    const held = this.slots.filter((slot): slot is Slot<T> => slot !== undefined);
    for (let size = this.slots.length * 2; ; size *= 2) {
      const slots = new Array<Slot<T> | undefined>(size).fill(undefined);
      let fits = true;
      for (const slot of held) {
        const index = slot.id & (size - 1);
        if (slots[index] !== undefined) {
          fits = false;
          break;
        }
        slots[index] = slot;
      }
      if (fits) {
        this.slots = slots;
        return;
      }
    }
  }
}
