import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The repository root, so tests run the same from any working directory. */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The shared corpus of real APS packages, used in place (never copied into the project). */
export const corpusRoot = fileURLToPath(new URL("../../../shared/corpus/", import.meta.url));

/**
 * Whether the corpus is beside this checkout. A clone anywhere else has no corpus beside it: the
 * suites that read it skip, and say why in their names, instead of failing.
 */
export const corpusAvailable = existsSync(corpusRoot);

/** The suffix tests that need the corpus carry in their names, so a skip explains itself. */
export const corpusSkipReason = corpusAvailable ? "" : " (skipped: ../shared/corpus is not beside this checkout)";
