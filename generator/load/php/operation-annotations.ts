import { Codes } from "../../diagnostics/codes.ts";
import type { DiagnosticSink } from "../../diagnostics/diagnostic.ts";
import type { Loc } from "../source-file.ts";
import type { DocTag, TagArgument } from "./doc-tags.ts";
import { object, put, scalar, type LocatedValue } from "./located-json.ts";
import type { PhpClass, PhpMethod } from "./php-program.ts";
import { accessObject } from "./property-annotations.ts";
import { firstTag, usableTags } from "./usable-tags.ts";

const METHOD_TAGS = new Set(["verb", "path", "param", "return", "static", "access", "description", "summary"]);

/**
 * Reads one PHP method the way `aps build` does (docs/aps/packages.md section 6): only a
 * method with `@verb` is an operation. `@param` tags bind to the PHP parameters by position;
 * the PHP parameter name becomes the JSON key.
 */
export function readOperationAnnotations(
  method: PhpMethod,
  owner: PhpClass,
  sink: DiagnosticSink,
): { name: string; loc: Loc; value: LocatedValue } | undefined {
  const tags = usableTags(method.doc, owner.file, sink, "method", METHOD_TAGS);
  const verb = firstTag(tags, "verb");
  if (!verb) {
    const stray = tags[0];
    if (stray)
      sink.report(
        Codes.phpAnnotationIgnored,
        stray.loc,
        `method ${method.name}() has APS annotations but no @verb, so "aps build" makes no operation of it; add @verb(GET) (or POST, PUT, DELETE) and @path("/...").`,
      );
    return undefined;
  }
  const out = object(verb.loc);
  putArgument(out, "verb", verb);
  const path = firstTag(tags, "path");
  if (path) putArgument(out, "path", path);
  const isStatic = firstTag(tags, "static");
  if (isStatic && isStatic.args?.[0]?.text.toLowerCase() !== "false") put(out, "static", scalar(true, isStatic.loc));
  const access = accessObject(
    tags.filter((t) => t.name === "access"),
    sink,
  );
  if (access) put(out, "access", access);
  const ret = firstTag(tags, "return");
  if (ret) put(out, "response", response(ret), ret.loc);
  const parameters = object(verb.loc);
  let position = 0;
  for (const tag of tags) {
    if (tag.name !== "param") continue;
    const args = tag.args ?? [];
    if (args.length === 0) {
      sink.report(Codes.phpAnnotationIgnored, tag.loc, `@param() names no type and kind; "aps build" drops it.`);
      continue;
    }
    const php = method.parameters[position++];
    if (!php) {
      sink.report(
        Codes.phpAnnotationIgnored,
        tag.loc,
        `@param(${args.map((a) => a.text).join(", ")}) has no PHP parameter at its position in ${method.name}(); "aps build" binds @param tags to the PHP parameters in order, so it drops this one. Add the parameter to the method.`,
      );
      continue;
    }
    const p = object(tag.loc);
    const [type, kind] = args;
    putType(p, type!);
    // `aps build` marks every parameter it writes as required.
    put(p, "required", scalar(true, tag.loc));
    if (kind) put(p, "kind", scalar(kind.text, kind.loc), tag.loc);
    put(parameters, php.name, p, tag.loc);
  }
  if (parameters.members.length > 0) put(out, "parameters", parameters);
  for (const t of tags) {
    if (t.name === "description" || t.name === "summary") {
      sink.report(
        Codes.phpAnnotationIgnored,
        t.loc,
        `@${t.name} on a method is not written by "aps build"; the operation gets no ${t.name}.`,
      );
    }
  }
  return { name: method.name, loc: verb.loc, value: out };
}

function putArgument(target: LocatedValue & { kind: "object" }, key: string, tag: DocTag): void {
  const arg = tag.args?.[0];
  put(target, key, scalar(arg?.text ?? "", arg?.loc ?? tag.loc), tag.loc);
}

/** `@return(T, ctype)` -> `{"contentType": ctype|null, "type": T, "items": null}`, as `aps build` writes it. */
function response(tag: DocTag): LocatedValue {
  const out = object(tag.loc);
  const [type, contentType] = tag.args ?? [];
  put(out, "contentType", scalar(contentType?.text ?? null, contentType?.loc ?? tag.loc), tag.loc);
  if (type?.text.endsWith("[]")) {
    put(out, "type", scalar("array", type.loc), tag.loc);
    const items = object(type.loc);
    put(items, "type", scalar(type.text.slice(0, -2), type.loc));
    put(out, "items", items, tag.loc);
  } else {
    put(out, "type", scalar(type?.text ?? null, type?.loc ?? tag.loc), tag.loc);
    put(out, "items", scalar(null, tag.loc));
  }
  return out;
}

function putType(target: LocatedValue & { kind: "object" }, type: TagArgument): void {
  if (type.text.endsWith("[]")) {
    put(target, "type", scalar("array", type.loc));
    const items = object(type.loc);
    put(items, "type", scalar(type.text.slice(0, -2), type.loc));
    put(target, "items", items, type.loc);
  } else {
    put(target, "type", scalar(type.text, type.loc));
  }
}
