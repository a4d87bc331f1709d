/**
 * The package compiler a running controller uses: the archive is unzipped, checked and compiled
 * in a worker thread (package-compile-worker.ts), so the controller keeps serving meanwhile (a
 * 2000-type package takes 10 s and more to compile, all of it CPU); only the import of the
 * finished validator scripts, a few milliseconds at a time, happens on the controller's thread.
 */
import { Worker } from "node:worker_threads";
import { ArchiveTooLarge } from "../../../runtime/common/bounded-unzip.ts";
import {
  PackageRejected,
  type CompiledPackage,
  type CompileStep,
} from "../../../runtime/controller/packages/catalog.ts";
import type { RegistryType } from "../../../runtime/controller/registry.ts";
import type { ValidatorScript } from "../../validate/load-validators.ts";
import { loadCompiledArchive, type CompiledArchive } from "./package-compiler.ts";
import { workerExecArgv } from "./worker-exec-argv.ts";

/** One archive for the worker to compile. */
export interface CompileJob {
  readonly archive: Uint8Array;
  readonly label: string;
}

/** What the worker tells, in order: steps, then types and validators in batches, then the rest, or why it failed. */
export type CompileMessage =
  | { readonly kind: "started" }
  | { readonly kind: "step"; readonly step: CompileStep }
  | { readonly kind: "types"; readonly types: readonly RegistryType[] }
  | { readonly kind: "validators"; readonly validators: readonly ValidatorScript[] }
  | { readonly kind: "done"; readonly data: Omit<CompiledArchive, "types" | "validators"> }
  | { readonly kind: "rejected"; readonly diagnostics: readonly string[] }
  | { readonly kind: "too-large" | "failed"; readonly message: string };

/**
 * The compile is background work: on Linux, where the nice value belongs to each thread, the
 * worker thread (and esbuild, which it starts) yields the CPU to the thread serving requests
 * when both want it. Elsewhere the value would apply to the whole process, so it is left alone.
 */
export const BACKGROUND_NICE = 10;

/** Whether this module runs from the TypeScript sources (a checkout, the tests) or the compiled package. */
const FROM_SOURCES = import.meta.url.endsWith(".ts");
const ENTRY = new URL(`./package-compile-worker${FROM_SOURCES ? ".ts" : ".js"}`, import.meta.url);

/** A `PackageCompiler` (runtime/controller/packages/catalog.ts) that compiles in a worker thread. */
export async function compileArchiveInWorker(
  archive: Uint8Array,
  label: string,
  progress?: (step: CompileStep) => void,
): Promise<CompiledPackage> {
  const data = await compileInWorker({ archive, label }, progress);
  return loadCompiledArchive(archive, data, progress);
}

/**
 * One worker thread per process, started at the first import and kept (unreferenced, so it holds
 * no process open): starting one loads the whole generator, and a thread that ends has its heap
 * torn down while this thread waits to join it (half a second after a 2000-type compile). Jobs
 * take turns.
 */
let shared: { worker: Worker; turn: Promise<unknown> } | undefined;

function compileInWorker(
  job: CompileJob,
  progress: ((step: CompileStep) => void) | undefined,
): Promise<CompiledArchive> {
  if (!shared) {
    const worker = startWorker();
    worker.unref();
    const mine = { worker, turn: Promise.resolve() as Promise<unknown> };
    // A thread that failed is replaced at the next import.
    const forget = () => {
      if (shared === mine) shared = undefined;
    };
    worker.once("error", forget);
    worker.once("exit", forget);
    shared = mine;
  }
  const current = shared;
  const run = current.turn.then(() => runJob(current.worker, job, progress));
  current.turn = run.catch(() => {});
  return run;
}

function runJob(
  worker: Worker,
  job: CompileJob,
  progress: ((step: CompileStep) => void) | undefined,
): Promise<CompiledArchive> {
  const started = performance.now();
  return new Promise<CompiledArchive>((resolve, reject) => {
    const types: RegistryType[] = [];
    const validators: ValidatorScript[] = [];
    const done = (outcome: () => void) => {
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
      outcome();
    };
    const onMessage = (m: CompileMessage) => {
      // Until the thread takes the job (the first time: starting it and loading the generator).
      if (m.kind === "started") progress?.({ phase: "worker", ms: Math.round(performance.now() - started) });
      else if (m.kind === "step") progress?.(m.step);
      else if (m.kind === "types" || m.kind === "validators") {
        if (m.kind === "types") types.push(...m.types);
        else validators.push(...m.validators);
        // The next batch once this one is in (see package-compile-worker.ts).
        worker.postMessage("next");
      } else if (m.kind === "done") done(() => resolve({ ...m.data, types, validators }));
      else if (m.kind === "rejected") done(() => reject(new PackageRejected(m.diagnostics)));
      else if (m.kind === "too-large") done(() => reject(new ArchiveTooLarge(m.message)));
      else done(() => reject(new Error(m.message)));
    };
    const onError = (error: Error) => done(() => reject(error));
    const onExit = (code: number) =>
      done(() =>
        reject(new Error(`the package compiler's worker thread stopped (exit code ${code}) before it was done`)),
      );
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.on("exit", onExit);
    worker.postMessage(job);
  });
}

function startWorker(): Worker {
  // The thread takes this process's Node options that it can take (worker-exec-argv.ts).
  const execArgv = workerExecArgv();
  if (!FROM_SOURCES) return new Worker(ENTRY, { execArgv });
  // Node runs no TypeScript by itself: from the sources the thread first registers tsx, as
  // bin/aps-gen.js does for the CLI (hooks registered on one thread do not reach another).
  // The thread inherits this process's options, so --conditions=aps-gen-source holds there too.
  const tsx = import.meta.resolve("tsx/esm/api");
  // Loading the generator through tsx is work too: the thread goes to the background first.
  const nice =
    process.platform === "linux" ? `try { require("node:os").setPriority(${BACKGROUND_NICE}); } catch {}\n` : "";
  const boot = `${nice}import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(ENTRY.href)}); });`;
  return new Worker(boot, { eval: true, execArgv });
}
