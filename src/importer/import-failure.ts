// A reason the import stops, worded for the person running it. The importer is an HTTP client of the
// server, so this is not a SkeinError (those are the server's Meilisearch-style error bodies).
export class ImportFailure extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = 'ImportFailure';
  }
}
