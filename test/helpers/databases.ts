/** The databases the controller's suites run on: always PGlite; PostgreSQL too when DATABASE_URL is set. */
export const databases: readonly ("pglite" | "postgres")[] = process.env.DATABASE_URL
  ? ["pglite", "postgres"]
  : ["pglite"];
