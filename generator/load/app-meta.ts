import { DOMParser, type Element } from "@xmldom/xmldom";
import { Codes } from "../diagnostics/codes.ts";
import type { DiagnosticSink } from "../diagnostics/diagnostic.ts";
import type { Loc, SourceFile } from "./source-file.ts";

/** The APS 2 package descriptor namespace. */
const APS2_NAMESPACE = "http://aps-standard.org/ns/2";

/** One `<service>` of APP-META.xml: the URL segment of a type and where its schema lives. */
interface ServiceEntry {
  readonly id: string;
  /** `<schema path>`; absent when the type is produced from code we cannot read (PHP annotations). */
  readonly schemaPath?: string;
  readonly loc: Loc;
  readonly schemaLoc?: Loc;
  /** `<code engine="php" path>`: the PHP script whose annotations declare the type. */
  readonly phpCode?: { readonly path: string; readonly loc: Loc };
}

/** What the generator needs from APP-META.xml. Code, UI and presentation are not its business. */
export interface AppMeta {
  readonly file: string;
  readonly id?: string;
  readonly name?: string;
  readonly version?: string;
  readonly release?: string;
  readonly services: readonly ServiceEntry[];
}

/**
 * Parses APP-META.xml, keeping the line of every `<service>` and `<schema>` so that a missing
 * schema file is reported where it is named. Returns undefined when the XML is unusable.
 */
export function parseAppMeta(file: SourceFile, sink: DiagnosticSink): AppMeta | undefined {
  let xmlProblem: { message: string; loc: Loc } | undefined;
  const parser = new DOMParser({
    onError: (level, message, context: { locator?: { lineNumber?: number; columnNumber?: number } }) => {
      if (level === "warning" || xmlProblem) return;
      const line = context?.locator?.lineNumber ?? 1;
      const col = context?.locator?.columnNumber ?? 1;
      xmlProblem = { message: message.replace(/\s+/g, " ").trim(), loc: { file: file.path, line, col } };
    },
  });
  let root: Element | null = null;
  try {
    root = parser.parseFromString(file.text, "text/xml").documentElement;
  } catch (error) {
    xmlProblem ??= { message: (error as Error).message, loc: { file: file.path, line: 1, col: 1 } };
  }
  if (xmlProblem) {
    sink.report(Codes.appMetaInvalid, xmlProblem.loc, `APP-META.xml is not well-formed XML: ${xmlProblem.message}.`);
    return undefined;
  }
  if (root?.localName !== "application" || root.namespaceURI !== APS2_NAMESPACE) {
    const loc = root ? elementLoc(file, root) : { file: file.path, line: 1, col: 1 };
    const found = root ? `<${root.tagName}> in namespace ${root.namespaceURI ?? "(none)"}` : "no root element";
    sink.report(
      Codes.appMetaInvalid,
      loc,
      `APP-META.xml must have root <application xmlns="${APS2_NAMESPACE}">; found ${found}. APS 1 packages are not supported.`,
    );
    return undefined;
  }

  const services: ServiceEntry[] = [];
  const seen = new Map<string, Loc>();
  for (const el of childElements(root, "service")) {
    const loc = elementLoc(file, el);
    const rawId = el.getAttribute("id") ?? "";
    const id = rawId.trim();
    if (id !== rawId) {
      sink.report(
        Codes.serviceIdWhitespace,
        loc,
        `<service id="${rawId}"> has surrounding whitespace; it is read as "${id}". Remove the spaces.`,
      );
    }
    const earlier = seen.get(id);
    if (earlier) {
      sink.report(
        Codes.duplicateService,
        loc,
        `<service id="${id}"> is declared twice (first at line ${earlier.line}); service ids must be unique.`,
      );
      continue;
    }
    seen.set(id, loc);
    const schema = childElements(el, "schema")[0];
    const schemaPath = schema?.getAttribute("path")?.trim();
    // Whether a service without a usable <schema> can still load is the loader's call: it
    // reads the PHP code when there is some (see load-inputs).
    const code = childElements(el, "code").find((c) => (c.getAttribute("engine") ?? "").trim().toLowerCase() === "php");
    const codePath = code?.getAttribute("path")?.trim();
    services.push({
      id,
      loc,
      ...(schema && schemaPath && { schemaPath, schemaLoc: elementLoc(file, schema) }),
      ...(code && codePath && { phpCode: { path: codePath, loc: elementLoc(file, code) } }),
    });
  }
  return {
    file: file.path,
    ...textOf(root, "id", "id"),
    ...textOf(root, "name", "name"),
    ...textOf(root, "version", "version"),
    ...textOf(root, "release", "release"),
    services,
  };
}

function childElements(parent: Element, localName: string): Element[] {
  const out: Element[] = [];
  for (let n = parent.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as Element).localName === localName && (n as Element).namespaceURI === APS2_NAMESPACE)
      out.push(n as Element);
  }
  return out;
}

function textOf<K extends string>(root: Element, localName: string, key: K): { [P in K]?: string } {
  const el = childElements(root, localName)[0];
  const text = el?.textContent?.trim();
  return (text ? { [key]: text } : {}) as { [P in K]?: string };
}

function elementLoc(file: SourceFile, el: Element): Loc {
  return { file: file.path, line: el.lineNumber ?? 1, col: el.columnNumber ?? 1 };
}
