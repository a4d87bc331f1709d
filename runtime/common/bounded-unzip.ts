/**
 * Unzipping an archive someone else made (an `.app.zip` posted to the controller or given to
 * the generator) without letting it decide how much memory or time inflating takes. A zip bomb
 * is a small archive whose entries inflate to gigabytes; a lying one declares small sizes and
 * inflates to more. So: first the sizes the central directory declares are checked (nothing is
 * inflated when they are over the bounds), then the entries are inflated in small steps with
 * fflate's streaming API, counting the bytes that really come out and stopping at the bound.
 */
import { Unzip, UnzipInflate, unzipSync } from "fflate";

/** Bounds on what an archive may inflate to. */
export interface UnzipLimits {
  /** Most bytes one entry may inflate to. */
  readonly entryBytes: number;
  /** Most bytes all entries together may inflate to. */
  readonly totalBytes: number;
  /** Most entries (files and folders). */
  readonly entries: number;
}

/** The bounds packages are held to: far above real APS packages, far below what hurts a controller. */
const PACKAGE_UNZIP_LIMITS: UnzipLimits = {
  entryBytes: 32 * 1024 * 1024,
  totalBytes: 128 * 1024 * 1024,
  entries: 10_000,
};

/** An archive that inflates (or says it inflates) past the bounds. */
export class ArchiveTooLarge extends Error {
  override readonly name = "ArchiveTooLarge";
}

/** Compressed bytes handed to the inflater at a time; at most ~1032 times this comes out of one step. */
const STEP_BYTES = 1024;

/**
 * The entries of `archive` by name (folders included, as fflate's `unzipSync` gives them).
 * Throws {@link ArchiveTooLarge} past `limits`, and fflate's error when the archive is malformed.
 */
export function unzipBounded(
  archive: Uint8Array,
  limits: UnzipLimits = PACKAGE_UNZIP_LIMITS,
): Record<string, Uint8Array> {
  const declared = checkDeclaredSizes(archive, limits);
  const files: Record<string, Uint8Array> = {};
  let total = 0;
  let entries = 0;
  let failure: unknown;
  const unzip = new Unzip((file) => {
    if (++entries > limits.entries) throw new ArchiveTooLarge(`the archive has more than ${limits.entries} entries`);
    const chunks: Uint8Array[] = [];
    let size = 0;
    file.ondata = (error, chunk, final) => {
      if (failure) return;
      if (error) {
        failure = error;
        return;
      }
      size += chunk.length;
      total += chunk.length;
      const promised = declared.get(file.name);
      if (promised !== undefined && size > promised)
        failure = new ArchiveTooLarge(`${file.name} inflates to more than the ${promised} bytes its header declares`);
      else if (size > limits.entryBytes)
        failure = new ArchiveTooLarge(
          `${file.name} inflates to more than ${limits.entryBytes} bytes (the most one file of a package may have), whatever its header says`,
        );
      else if (total > limits.totalBytes)
        failure = new ArchiveTooLarge(
          `the files inflate to more than ${limits.totalBytes} bytes in all (the most a package may have), whatever the headers say`,
        );
      if (failure) {
        file.terminate();
        return;
      }
      chunks.push(chunk);
      if (final) files[file.name] = concat(chunks, size);
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  for (let at = 0; at < archive.length && !failure; at += STEP_BYTES)
    unzip.push(archive.subarray(at, at + STEP_BYTES), at + STEP_BYTES >= archive.length);
  if (failure) throw failure;
  // The local headers the stream reads must tell the same story as the central directory.
  const missing = [...declared.keys()].find((name) => !(name in files));
  if (missing !== undefined)
    throw new Error(`the archive is truncated or inconsistent: ${missing} is listed but its data cannot be read`);
  return files;
}

/**
 * Refuses, before inflating anything, an archive whose central directory declares too much; gives
 * each name's declared inflated size. Cheap (only the directory is read), so it can run where the
 * full check of {@link unzipBounded} would take too long, as a first answer to an obvious bomb.
 */
export function checkDeclaredSizes(
  archive: Uint8Array,
  limits: UnzipLimits = PACKAGE_UNZIP_LIMITS,
): Map<string, number> {
  const names = new Map<string, number>();
  let total = 0;
  let entries = 0;
  // The filter sees each entry's declared sizes; returning false means nothing is inflated here.
  unzipSync(archive, {
    filter: (info) => {
      // A stored entry is as large as its data, whatever its size field says; an inflated one is held to what it declares.
      const size = info.compression === 0 ? Math.max(info.originalSize, info.size) : info.originalSize;
      if (++entries > limits.entries) throw new ArchiveTooLarge(`the archive has more than ${limits.entries} entries`);
      if (size > limits.entryBytes)
        throw new ArchiveTooLarge(
          `${info.name} declares ${info.originalSize} bytes inflated, more than the ${limits.entryBytes} one file of a package may have`,
        );
      total += size;
      if (total > limits.totalBytes)
        throw new ArchiveTooLarge(
          `the files declare more than ${limits.totalBytes} bytes inflated in all, the most a package may have`,
        );
      names.set(info.name, size);
      return false;
    },
  });
  return names;
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
