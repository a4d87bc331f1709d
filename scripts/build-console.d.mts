/** Declarations of build-console.mjs, for the tests that build the console. */
import type { Metafile } from "esbuild";

/** Builds the console into `outdir` (emptied first); resolves with esbuild's metafile. */
export function buildConsole(outdir: string): Promise<Metafile>;
