// Issue 23's rebalancing, its pure part (documents/shard-group.ts): which documents change group when
// the shard groups change. Rendezvous hashing's property, on random ids and group names: adding a group
// moves only the documents the new group wins (about 1/(n+1) of them), removing one moves only its own,
// and the answer does not depend on the order the names are listed in. Plus which groups a node
// fetches from (sourceGroups) and which documents it keeps (keepsDocument).
import test from 'ava';
import { keepsDocument, ownGroupIn, rendezvousGroup, samePlacement, sourceGroups } from '../../src/documents/shard-group.js';

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

function randomId(next: () => number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_';
  const length = 1 + Math.floor(next() * 24);
  let id = '';
  for (let i = 0; i < length; i++) id += alphabet[Math.floor(next() * alphabet.length)];
  return id;
}

test('adding a group moves only the documents the new group wins, about 1/(n+1) of them (randomized)', (t) => {
  for (let round = 0; round < 20; round++) {
    const next = random(1000 + round);
    const count = 2 + Math.floor(next() * 5);
    const groups = Array.from({ length: count }, (_, i) => `g${i}-${randomId(next)}`);
    const added = `new-${randomId(next)}`;
    const grown = [...groups, added];
    const ids = Array.from({ length: 3000 }, (_, i) => `${randomId(next)}${i}`);
    let moved = 0;
    for (const id of ids) {
      const before = rendezvousGroup(id, groups);
      const after = rendezvousGroup(id, grown);
      if (after !== before) {
        t.is(after, added, `${id}: ${before} -> ${after}`);
        moved++;
      }
    }
    const share = moved / ids.length;
    const expected = 1 / (count + 1);
    t.true(Math.abs(share - expected) < expected * 0.25, `${count} -> ${count + 1} groups: ${share.toFixed(3)} moved, ~${expected.toFixed(3)} expected`);
  }
});

test('removing a group moves only its own documents, spread over the others; the order of the names does not matter (randomized)', (t) => {
  for (let round = 0; round < 20; round++) {
    const next = random(5000 + round);
    const groups = Array.from({ length: 3 + Math.floor(next() * 4) }, (_, i) => `s${i}${randomId(next)}`);
    const removed = groups[Math.floor(next() * groups.length)]!;
    const shrunk = groups.filter((group) => group !== removed);
    const shuffled = [...groups].sort(() => next() - 0.5);
    for (let i = 0; i < 2000; i++) {
      const id = randomId(next);
      const before = rendezvousGroup(id, groups);
      t.is(rendezvousGroup(id, shuffled), before);
      const after = rendezvousGroup(id, shrunk);
      if (before !== removed) t.is(after, before);
      else t.not(after, removed);
    }
  }
});

test('a node fetches from every other old group, keeps its new group\'s documents; no group means everything', (t) => {
  const previous = { g1: ['n1'], g2: ['n2', 'n3'] };
  const next = { g1: ['n1'], g2: ['n2'], g3: ['n3'] };
  t.is(ownGroupIn(previous, 'n3'), 'g2');
  t.is(ownGroupIn(next, 'n3'), 'g3');
  t.deepEqual(sourceGroups(previous, next, 'n3'), ['g1']);
  t.deepEqual(sourceGroups(previous, next, 'n1'), ['g2']);
  // Before any group every node held everything; a node in no new group keeps what it has.
  t.deepEqual(sourceGroups({}, next, 'n1'), []);
  t.deepEqual(sourceGroups(previous, { g1: ['n1'] }, 'n2'), []);
  t.true(samePlacement({ a: ['x', 'y'], b: ['z'] }, { b: ['z'], a: ['y', 'x'] }));
  t.false(samePlacement({ a: ['x'] }, { a: ['x'], b: ['y'] }));
  t.false(samePlacement({ a: ['x'] }, { a: ['y'] }));
  const names = Object.keys(next).sort();
  for (let i = 0; i < 500; i++) {
    const id = `doc-${i}`;
    const owner = rendezvousGroup(id, names);
    t.is(keepsDocument(id, names, 'g3'), owner === 'g3');
    t.true(keepsDocument(id, names, null));
    t.true(keepsDocument(id, [], 'g3'));
  }
});
