/**
 * The sealed rows of `deployment_secrets` (migration 0015): read them, or put in a whole set when
 * the table holds none. What is stored here is already sealed (deployment-key.ts); this module
 * never sees a secret in clear.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../store/open-database.ts";
import { deploymentSecrets } from "../store/schema.ts";

/** Sealed secrets by name. */
export type SealedSecrets = ReadonlyMap<string, Uint8Array>;

/** Every sealed secret the database holds (none before a controller first started with a deployment key). */
export async function readSealedSecrets(db: Db): Promise<SealedSecrets> {
  const rows = await db
    .select({ name: deploymentSecrets.name, sealed: deploymentSecrets.sealed })
    .from(deploymentSecrets);
  return new Map(rows.map((r) => [r.name, new Uint8Array(r.sealed)]));
}

/**
 * Stores `candidates` when the table is empty, in one statement, then reads what the table holds:
 * ours, or the set of a controller that got there first. Two controllers starting at once both
 * find the table empty and both insert; the second's insert waits on the first's uncommitted rows
 * (same primary keys) and, once they commit, skips every one of them (`on conflict do nothing`),
 * so the table ends with one controller's whole set, never a mix. A table that holds some rows
 * already gets none of ours (`where not exists`): a set is never completed with another's parts.
 */
export async function storeSealedSecretsUnlessPresent(db: Db, candidates: SealedSecrets): Promise<SealedSecrets> {
  const values = sql.join(
    [...candidates].map(([name, sealed]) => sql`(${name}, ${Buffer.from(sealed)}::bytea)`),
    sql`, `,
  );
  await db.execute(sql`
    insert into deployment_secrets (name, sealed)
    select name, sealed from (values ${values}) as candidate(name, sealed)
    where not exists (select 1 from deployment_secrets)
    on conflict (name) do nothing`);
  return readSealedSecrets(db);
}
