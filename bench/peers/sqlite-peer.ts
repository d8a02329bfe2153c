// SQLite FTS5 (better-sqlite3) behind the peer server, as SQLite's FTS5 documentation sets up a search
// box: an FTS5 table over the searchable attributes (unicode61 tokenizer, diacritics removed), prefix
// indexes of 2, 3 and 4 characters (`prefix='2 3 4'`) so the last word's prefix query `word*` is an index
// lookup, every query word as a quoted string, ANDed (FTS5's implicit operator), the last one as a prefix,
// ranked by bm25() with the first attribute weighted 10 to 1 (as Meilisearch ranks earlier attributes
// higher). No typo tolerance: FTS5 has none. The database is a file in --db-path (synchronous=OFF,
// journal off while loading); its on-disk size is reported beside Skein's data size.
import Database from 'better-sqlite3';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fts5Query } from './fts5-query.js';
import { runPeer } from './peer-server.js';

function directoryBytes(directory: string): number {
  let total = 0;
  for (const name of readdirSync(directory)) total += statSync(join(directory, name)).size;
  return total;
}

await runPeer('sqlite', ({ documentJson, searchableAttributes, dbPath }, documents) => {
  const directory = dbPath || '.';
  mkdirSync(directory, { recursive: true });
  const db = new Database(join(directory, 'fts5.db'));
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  const columns = searchableAttributes.map((field) => `"${field.replace(/"/g, '')}"`);
  db.exec(`CREATE VIRTUAL TABLE docs USING fts5(${columns.join(', ')}, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4')`);
  const insert = db.prepare(`INSERT INTO docs(rowid, ${columns.join(', ')}) VALUES (?${', ?'.repeat(columns.length)})`);
  db.transaction(() => {
    for (const document of documents) insert.run(document.id as number, ...searchableAttributes.map((field) => String(document[field] ?? '')));
  })();
  db.exec(`INSERT INTO docs(docs) VALUES ('optimize')`);
  const weights = searchableAttributes.map((_, i) => (i === 0 ? 10 : 1)).join(', ');
  const select = db.prepare(`SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs, ${weights}) LIMIT ?`).raw(true);
  const diskBytes = directoryBytes(directory);
  return {
    search(q, limit) {
      const match = fts5Query(q);
      if (match === null) return { hits: documentJson.slice(0, limit), estimatedTotalHits: documentJson.length };
      const rows = select.all(match, limit) as Array<[number]>;
      // No count(*) of every match: FTS5 ranks and stops at the page; estimatedTotalHits is the page's size.
      return { hits: rows.map(([rowid]) => documentJson[rowid]), estimatedTotalHits: rows.length };
    },
    figures: () => ({ diskBytes }),
  };
});
