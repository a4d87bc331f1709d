import { watch, type FSWatcher } from "node:fs";
import { statSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";

/** What a watch follows: the inputs, and what to leave out (the output folder, dot folders). */
export interface WatchTargets {
  /** Files and folders to watch (folders recursively). */
  readonly paths: readonly string[];
  /** Absolute folders whose changes are ignored, e.g. the build's own output. */
  readonly ignore: readonly string[];
}

/**
 * Runs `rebuild` whenever something under the targets changes, a burst of changes (an editor
 * saving several files, a git checkout) being one rebuild 100 ms after the last of them, until
 * SIGINT/SIGTERM or `signal`. A rebuild that throws is reported and watching goes on: a bad
 * declaration never ends the watch. fs.watch is recursive on Linux, macOS and Windows since
 * Node 20.
 */
export function watchAndRebuild(
  targets: WatchTargets,
  rebuild: () => void,
  say: (line: string) => void,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((done) => {
    const watchers: FSWatcher[] = [];
    let timer: NodeJS.Timeout | undefined;
    const ignored = (file: string) =>
      targets.ignore.some((dir) => file === dir || file.startsWith(dir + sep)) ||
      file.split(sep).some((part) => part.startsWith(".") && part.length > 1) ||
      file.includes(`${sep}node_modules${sep}`);
    const schedule = (file: string) => {
      if (ignored(file)) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        say(`  change in ${relative(process.cwd(), file) || file}: rebuilding`);
        try {
          rebuild();
        } catch (error) {
          say(`✗ rebuild failed: ${(error as Error).message}`);
        }
      }, 100);
    };
    for (const path of targets.paths) {
      const abs = resolve(path);
      let isDir = false;
      try {
        isDir = statSync(abs).isDirectory();
      } catch {
        say(`  not watching ${path}: it does not exist`);
        continue;
      }
      const base = isDir ? abs : dirname(abs);
      const watcher = watch(isDir ? abs : base, { recursive: isDir }, (_event, name) => {
        const file = name ? resolve(base, name.toString()) : abs;
        if (!isDir && file !== abs) return;
        schedule(file);
      });
      watcher.on("error", (error) => say(`  watching ${path} failed: ${error.message}`));
      watchers.push(watcher);
    }
    const stop = () => {
      clearTimeout(timer);
      for (const w of watchers) w.close();
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      signal?.removeEventListener("abort", stop);
      done();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    signal?.addEventListener("abort", stop);
    say(`  watching ${targets.paths.join(", ")} for changes (Ctrl-C ends)`);
  });
}
