/**
 * Where an imported package's archive is kept: in `package_archive_parts`, a statement per part.
 * The embedded database (PGlite) runs on the serving thread, so a statement carrying a whole
 * 2 MB archive held every other request for 140–250 ms; a 64 KiB part holds it a few
 * milliseconds, and requests are served between parts (the event loop is given a turn after
 * each). PostgreSQL takes the same statements.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../store/open-database.ts";
import { packageArchiveParts, packages } from "../store/schema.ts";

/** Bytes per stored part. */
export const ARCHIVE_PART_BYTES = 64 * 1024;

/**
 * Stores `archive` as the parts of package `id`. Call it before the package's row is written, so
 * that a row always has its whole archive; when a part fails, the parts written are removed.
 */
export async function storeArchive(db: Db, id: string, archive: Uint8Array): Promise<void> {
  try {
    for (let part = 0, at = 0; at < archive.length || part === 0; part++, at += ARCHIVE_PART_BYTES) {
      const piece = Buffer.from(
        archive.buffer,
        archive.byteOffset + at,
        Math.min(ARCHIVE_PART_BYTES, archive.length - at),
      );
      // As hex text: PGlite turns a byte parameter into text itself, about 15 times slower.
      await db
        .insert(packageArchiveParts)
        .values({ packageId: id, part, bytes: sql`decode(${piece.toString("hex")}, 'hex')` });
      // PGlite answers in a microtask: without a turn of the event loop here, no request would
      // be read between parts.
      await yieldToEventLoop();
    }
  } catch (error) {
    await removeArchive(db, id).catch(() => {});
    throw error;
  }
}

/**
 * The archive of package `id`, read a part per statement; undefined when none is stored. (An
 * archive stored before migration 0010 is one part of any size.)
 */
export async function readArchive(db: Db, id: string): Promise<Uint8Array | undefined> {
  const pieces: Uint8Array[] = [];
  for (let part = 0; ; part++) {
    const [row] = await db
      .select({ bytes: packageArchiveParts.bytes })
      .from(packageArchiveParts)
      .where(and(eq(packageArchiveParts.packageId, id), eq(packageArchiveParts.part, part)));
    if (!row) break;
    pieces.push(row.bytes);
    await yieldToEventLoop();
  }
  return pieces.length ? Buffer.concat(pieces) : undefined;
}

/**
 * Stores an imported package: its archive first, its row last, so that a row another instance
 * sees always has its whole archive. Nothing is left when either fails.
 */
export async function savePackage(db: Db, row: typeof packages.$inferInsert, archive: Uint8Array): Promise<void> {
  await storeArchive(db, row.id, archive);
  try {
    await db.insert(packages).values(row);
  } catch (error) {
    await removeArchive(db, row.id).catch(() => {});
    throw error;
  }
}

/** Removes the stored parts of package `id`. */
export async function removeArchive(db: Db, id: string): Promise<void> {
  await db.delete(packageArchiveParts).where(eq(packageArchiveParts.packageId, id));
}
