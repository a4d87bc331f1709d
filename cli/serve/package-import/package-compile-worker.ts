/**
 * Worker-thread entry of compileArchiveInWorker (worker-compiler.ts): compiles the archives it
 * is sent (compileArchiveData), tells the steps as they end and hands each result over as plain data.
 * Types and validator scripts go in batches: the receiving thread decodes each message in one
 * go, and 2000 types (or 21 MB of scripts) at once would hold it for tens of milliseconds.
 */
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { ArchiveTooLarge } from "../../../runtime/common/bounded-unzip.ts";
import { PackageRejected } from "../../../runtime/controller/packages/catalog.ts";
import { compileArchiveData } from "./package-compiler.ts";
import { BACKGROUND_NICE, type CompileJob, type CompileMessage } from "./worker-compiler.ts";

const TYPES_PER_MESSAGE = 100;
/** ~0.8 MB of validator code per message. */
const VALIDATORS_PER_MESSAGE = 50;

const port = parentPort!;
const send = (m: CompileMessage) => port.postMessage(m);
// See BACKGROUND_NICE (a second time from the sources, where the boot code did it already).
if (process.platform === "linux") {
  try {
    setPriority(BACKGROUND_NICE);
  } catch {
    // Not allowed here (a container without the capability to change it): run at normal priority.
  }
}
// One job at a time: the controller sends the next once this one is answered.
// Batches go one at a time, each once the previous one was taken ("next"): messages that queue up
// are all decoded in one turn of the receiving thread's event loop, which would hold it again.
const waiting: (() => void)[] = [];
const taken = () => new Promise<void>((resolve) => waiting.push(resolve));
port.on("message", (m: CompileJob | "next") => {
  if (m === "next") waiting.shift()?.();
  else void compileOne(m);
});

async function compileOne({ archive, label }: CompileJob): Promise<void> {
  send({ kind: "started" });
  try {
    const { types, validators, ...rest } = await compileArchiveData(archive, label, (step) =>
      send({ kind: "step", step }),
    );
    for (let at = 0; at < types.length; at += TYPES_PER_MESSAGE) {
      send({ kind: "types", types: types.slice(at, at + TYPES_PER_MESSAGE) });
      await taken();
    }
    for (let at = 0; at < validators.length; at += VALIDATORS_PER_MESSAGE) {
      send({ kind: "validators", validators: validators.slice(at, at + VALIDATORS_PER_MESSAGE) });
      await taken();
    }
    send({ kind: "done", data: rest });
  } catch (error) {
    if (error instanceof PackageRejected) send({ kind: "rejected", diagnostics: error.diagnostics });
    else if (error instanceof ArchiveTooLarge) send({ kind: "too-large", message: error.message });
    else send({ kind: "failed", message: (error as Error).message ?? String(error) });
  }
}
