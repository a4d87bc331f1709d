import type { resources } from "./schema.ts";

/** A row of the resources table as the store reads it. */
export type StoredResource = typeof resources.$inferSelect;
