import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  CodeActionKind,
  createConnection,
  DidChangeWatchedFilesNotification,
  MessageType,
  ShowMessageNotification,
  TextDocuments,
  TextDocumentSyncKind,
  type Diagnostic,
  type InitializeParams,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import type { RuleSetting } from "../../generator/diagnostics.ts";
import { quickFixes } from "./code-actions.ts";
import { completionsAt } from "./completion.ts";
import { DiagnosticsByFile, linesOf } from "./diagnostics.ts";
import { ModelIndex } from "./model-index.ts";
import { definitionAt, hoverAt } from "./navigation.ts";
import { type Compiled, Workspace } from "./workspace.ts";

/** How `aps-gen lsp` was started. */
interface LanguageServerOptions {
  /** The folder it was started in: the workspace when the editor names none. */
  readonly cwd: string;
  /** `--types`, as absolute paths; else the editor's `initializationOptions.types`, else the default inputs. */
  readonly types?: readonly string[];
  readonly core: boolean;
  readonly rules?: ReadonlyMap<string, RuleSetting>;
}

/** The files whose edits change what the compiler sees. */
const DECLARATION_FILE = /(\.schema|\.schema\.gen|\.schema\.json|\.php|(^|[\\/])APP-META\.xml)$/i;

/** Edits come in per keystroke; compiling waits until typing pauses this long. */
const DEBOUNCE_MS = 200;

/**
 * The language server: on every edit of a declaration file (debounced), the whole workspace is
 * compiled with the editor's unsaved texts, and the diagnostics of every file are published
 * (an empty list for a file that is clean again). Hover, definition and completion answer from
 * the latest compile, made at once when edits are pending. Runs until the editor sends `exit`
 * or closes the streams; the library ends the process then (0 after `shutdown`, else 1).
 */
export function runLanguageServer(options: LanguageServerOptions): Promise<number> {
  // stdout carries the protocol: anything printed by accident would break it.
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  const connection = createConnection(process.stdin, process.stdout);
  const documents = new TextDocuments(TextDocument);
  let workspace = new Workspace({
    root: options.cwd,
    core: options.core,
    ...(options.types && { types: options.types }),
    ...(options.rules && { rules: options.rules }),
  });
  const published = new DiagnosticsByFile();
  let index: ModelIndex | undefined;
  let timer: NodeJS.Timeout | undefined;
  let lastError: string | undefined;
  const absolute = (displayPath: string) => workspace.absolute(displayPath);
  const publish = (byUri: Map<string, Diagnostic[]>) => {
    for (const [uri, diagnostics] of byUri) void connection.sendDiagnostics({ uri, diagnostics });
  };

  const refresh = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    let compiled: Compiled;
    try {
      compiled = workspace.compile();
    } catch (error) {
      connection.console.error(`aps-gen: the compiler failed: ${(error as Error).stack ?? String(error)}`);
      return;
    }
    if (compiled.error !== undefined) {
      index = undefined;
      // A notification, not window.showErrorMessage: that is a request the editor may leave unanswered.
      if (compiled.error !== lastError)
        void connection.sendNotification(ShowMessageNotification.type, {
          type: MessageType.Error,
          message: `aps-gen: ${compiled.error}`,
        });
      lastError = compiled.error;
      publish(published.next([], absolute, () => []));
      return;
    }
    lastError = undefined;
    index = new ModelIndex(compiled.result, absolute);
    const lines = (path: string) => linesOf(documents.get(pathToFileURL(path).href)?.getText() ?? readText(path));
    publish(published.next(compiled.result.diagnostics, absolute, lines));
  };
  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(refresh, DEBOUNCE_MS);
  };
  /** The model of the texts as they are now: compiles first when an edit is still waiting. */
  const current = () => {
    if (timer) refresh();
    return index;
  };

  let watchFiles = false;
  connection.onInitialize((params) => {
    watchFiles = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    const root = workspaceRoot(params) ?? options.cwd;
    // The editor's paths stay relative to the workspace folder (the compiler's cwd), so messages show them as written.
    const types = options.types ?? initializationTypes(params);
    workspace = new Workspace({
      root,
      core: options.core,
      ...(types && { types }),
      ...(options.rules && { rules: options.rules }),
    });
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        hoverProvider: true,
        definitionProvider: true,
        completionProvider: { triggerCharacters: ['"', "/"] },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      },
      serverInfo: { name: "aps-gen" },
    };
  });
  connection.onInitialized(() => {
    // Files changed behind the editor's back (a git checkout, a generator) are compiled again too.
    if (watchFiles)
      void connection.client.register(DidChangeWatchedFilesNotification.type, {
        watchers: [{ globPattern: "**/{*.schema,*.schema.gen,*.schema.json,*.php,APP-META.xml}" }],
      });
    refresh();
  });

  documents.onDidChangeContent(({ document }) => {
    const path = pathOf(document.uri);
    if (path === undefined || !DECLARATION_FILE.test(path)) return;
    workspace.setText(path, document.getText());
    schedule();
  });
  documents.onDidClose(({ document }) => {
    const path = pathOf(document.uri);
    if (path === undefined) return;
    workspace.forget(path);
    if (DECLARATION_FILE.test(path)) schedule();
  });
  connection.onDidChangeWatchedFiles(() => schedule());

  const at = (uri: string, position: { line: number; character: number }) => {
    const document = documents.get(uri);
    const path = pathOf(uri);
    const model = current();
    return document && path !== undefined && model
      ? { document, path, model, offset: document.offsetAt(position) }
      : undefined;
  };
  connection.onHover(({ textDocument, position }) => {
    const here = at(textDocument.uri, position);
    const markdown = here && hoverAt(here.model, here.path, here.document.getText(), here.offset);
    return markdown === undefined ? null : { contents: { kind: "markdown", value: markdown } };
  });
  connection.onDefinition(({ textDocument, position }) => {
    const here = at(textDocument.uri, position);
    return (here && definitionAt(here.model, here.path, here.document.getText(), here.offset)) ?? null;
  });
  connection.onCompletion(({ textDocument, position }) => {
    const document = documents.get(textDocument.uri);
    const path = pathOf(textDocument.uri);
    if (!document || path === undefined) return [];
    return completionsAt(current(), path, document, document.offsetAt(position));
  });
  connection.onCodeAction(({ textDocument, context }) => quickFixes(textDocument.uri, context.diagnostics));

  documents.listen(connection);
  connection.listen();
  // Never settles: the library ends the process on `exit` or when the editor closes the streams.
  return new Promise<number>(() => {});
}

function workspaceRoot(params: InitializeParams): string | undefined {
  const uri = params.workspaceFolders?.[0]?.uri ?? params.rootUri;
  return uri ? pathOf(uri) : (params.rootPath ?? undefined);
}

/** `initializationOptions: { "types": ["types", "../other-package"] }`, relative to the workspace folder. */
function initializationTypes(params: InitializeParams): string[] | undefined {
  const types = (params.initializationOptions as { types?: unknown } | undefined)?.types;
  return Array.isArray(types) && types.length && types.every((t) => typeof t === "string") ? types : undefined;
}

function pathOf(uri: string): string | undefined {
  return uri.startsWith("file:") ? fileURLToPath(uri) : undefined;
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
