import { fileURLToPath } from "node:url";

/** The repository root, so tests run the same from any working directory. */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The shared corpus of real APS packages, used in place (never copied into the project). */
export const corpusRoot = fileURLToPath(new URL("../../../shared/corpus/", import.meta.url));
