/**
 * The PostgreSQL URL a command uses: `--database-url` (or `APS_GEN_DATABASE_URL`), else
 * `$DATABASE_URL`; none, or an empty one, means the embedded PGlite of the data folder.
 */
export function databaseUrlOf(options: { readonly "database-url"?: string }): string | undefined {
  return (options["database-url"] ?? process.env.DATABASE_URL) || undefined;
}
