import { customType } from "drizzle-orm/pg-core";
import { parseJsonText, stringifyJson } from "../../common/json-text.ts";

/**
 * A `jsonb` column that keeps 64-bit integers exact. PostgreSQL stores JSON numbers as
 * `numeric`, so 9223372036854775807 survives in the database; the drivers would round it on the
 * way back through `JSON.parse`. Both drivers are told to hand jsonb over as text
 * (see open-database.ts) and this column parses it with the lossless parser.
 */
export const exactJsonb = customType<{ data: Record<string, unknown>; driverData: string }>({
  dataType: () => "jsonb",
  toDriver: (value) => stringifyJson(value),
  fromDriver: (value) => (typeof value === "string" ? parseJsonText(value) : value) as Record<string, unknown>,
});
