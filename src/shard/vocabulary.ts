// Words of one shard: interned ids, posting lists (word -> documents) and the sorted lexicon.
import roaring from 'roaring';
import { Lexicon } from './lexicon.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

const EMPTY = new RoaringBitmap32();

export class Vocabulary {
  private readonly ids = new Map<string, number>();
  private readonly words: string[] = [];
  private readonly postings: RoaringBitmap32[] = [];
  readonly lexicon = new Lexicon();

  idOf(word: string): number | undefined {
    return this.ids.get(word);
  }

  wordOf(id: number): string {
    return this.words[id]!;
  }

  /** Documents holding the word; an empty bitmap for an unknown id. Do not mutate. */
  docs(id: number): RoaringBitmap32 {
    return this.postings[id] ?? EMPTY;
  }

  docsOfWord(word: string): RoaringBitmap32 {
    const id = this.ids.get(word);
    return id === undefined ? EMPTY : this.postings[id]!;
  }

  intern(word: string): number {
    let id = this.ids.get(word);
    if (id === undefined) {
      id = this.words.length;
      this.ids.set(word, id);
      this.words.push(word);
      this.postings.push(new RoaringBitmap32());
      this.lexicon.add(word);
    }
    return id;
  }

  addDocument(id: number, docId: number): void {
    this.postings[id]!.add(docId);
  }

  /** Words whose posting list empties stay interned (ids are referenced by the forward index); derivations skip them. */
  removeDocument(id: number, docId: number): void {
    this.postings[id]?.remove(docId);
  }

  /** Frees the slack capacity posting lists keep for growth (after a bulk load). */
  trim(): void {
    for (const posting of this.postings) {
      posting.runOptimize();
      posting.shrinkToFit();
    }
  }

  get size(): number {
    return this.words.length;
  }
}
