import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShowMessageNotification,
  ShutdownRequest,
  type Diagnostic,
  type ProtocolConnection,
} from "vscode-languageserver/node";
import { repoRoot } from "./paths.ts";
import { until } from "./until.ts";

/**
 * An editor's side of `aps-gen lsp`: the CLI as a child process, driven over its stdin/stdout
 * by the protocol library's own connection. Keeps the diagnostics last published for each file.
 */
export class LspSession {
  /** The latest diagnostics per file URI, and how many times each was published. */
  readonly diagnostics = new Map<string, { readonly list: Diagnostic[]; readonly count: number }>();
  stderr = "";

  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    readonly connection: ProtocolConnection,
  ) {
    child.stderr.on("data", (d: Buffer) => (this.stderr += d.toString()));
    connection.onNotification(PublishDiagnosticsNotification.type, ({ uri, diagnostics }) => {
      this.diagnostics.set(uri, { list: diagnostics, count: (this.diagnostics.get(uri)?.count ?? 0) + 1 });
    });
    connection.onNotification(ShowMessageNotification.type, ({ message }) => {
      this.shown.push(message);
    });
  }

  /** Messages the server showed the user (window/showMessage). */
  readonly shown: string[] = [];

  /** Starts the server in `workspace` and completes the initialize handshake. */
  static async start(
    workspace: string,
    args: readonly string[] = [],
    initializationOptions?: object,
  ): Promise<LspSession> {
    const child = spawn(process.execPath, [join(repoRoot, "bin/aps-gen.js"), "lsp", "--stdio", ...args], {
      cwd: workspace,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const connection = createProtocolConnection(child.stdout, child.stdin);
    const session = new LspSession(child, connection);
    connection.listen();
    await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: uriOf(workspace),
      workspaceFolders: [{ uri: uriOf(workspace), name: "workspace" }],
      capabilities: {},
      ...(initializationOptions && { initializationOptions }),
    });
    await connection.sendNotification(InitializedNotification.type, {});
    return session;
  }

  /** Waits for diagnostics of `path` published after the `after`-th time that satisfy `accept`. */
  async diagnosticsOf(path: string, accept: (list: Diagnostic[]) => boolean, after = 0): Promise<Diagnostic[]> {
    return until(`diagnostics of ${path} (${this.stderr})`, () => {
      const got = this.diagnostics.get(uriOf(path));
      return got && got.count > after && accept(got.list) ? got.list : undefined;
    });
  }

  /** How many times diagnostics of `path` were published so far. */
  publishedCount(path: string): number {
    return this.diagnostics.get(uriOf(path))?.count ?? 0;
  }

  /** Ends the server as an editor does (shutdown, exit) and returns its exit code. */
  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((done) => this.child.on("close", done));
    await this.connection.sendRequest(ShutdownRequest.type);
    await this.connection.sendNotification(ExitNotification.type);
    const code = await exited;
    this.connection.dispose();
    return code;
  }
}

export function uriOf(path: string): string {
  return pathToFileURL(path).href;
}
