import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { applyRuleSettings, type RuleSetting } from "../../generator/diagnostics.ts";
import { compile, InputError, type CompileResult } from "../../generator/pipeline.ts";

/** What the server compiles: the editor's workspace folder and how to find its declarations. */
interface WorkspaceOptions {
  /** Absolute path of the workspace folder; diagnostics' paths are relative to it. */
  readonly root: string;
  /** The inputs (`--types`), absolute or relative to the root; default: `types/` in the root when it exists, else the root. */
  readonly types?: readonly string[];
  /** Load the bundled core types (the CLI's --core). */
  readonly core: boolean;
  /** Rule severities from the config file, as `aps-gen check` applies them. */
  readonly rules?: ReadonlyMap<string, RuleSetting>;
}

/** The outcome of one compile: the result, or why the inputs could not be read at all. */
export type Compiled =
  | { readonly result: CompileResult; readonly error?: undefined }
  | { readonly result?: undefined; readonly error: string };

/**
 * The workspace's declarations as the compiler sees them, with the editor's unsaved texts read
 * in place of the files on disk. Each compile reads everything again: a workspace holds a few
 * packages, which compile in tens of milliseconds, and a fresh compile can never go stale.
 */
export class Workspace {
  private readonly unsaved = new Map<string, string>();

  constructor(readonly options: WorkspaceOptions) {}

  /** The folders and files handed to the compiler. */
  inputs(): readonly string[] {
    if (this.options.types?.length) return this.options.types;
    return [existsSync(resolve(this.options.root, "types")) ? "types" : "."];
  }

  /** Reads `text` in place of the file at `path` (absolute) until forgotten. */
  setText(path: string, text: string): void {
    this.unsaved.set(path, text);
  }

  /** Reads the file at `path` from disk again (the editor closed it). */
  forget(path: string): void {
    this.unsaved.delete(path);
  }

  /** The absolute path of a diagnostic's or a location's display path. */
  absolute(displayPath: string): string {
    return resolve(this.options.root, displayPath);
  }

  compile(): Compiled {
    try {
      const result = compile(this.inputs(), {
        cwd: this.options.root,
        includeCore: this.options.core,
        overlay: this.unsaved,
      });
      return {
        result: this.options.rules?.size
          ? { ...result, diagnostics: applyRuleSettings(result.diagnostics, this.options.rules) }
          : result,
      };
    } catch (error) {
      if (error instanceof InputError) return { error: error.message };
      throw error;
    }
  }
}
