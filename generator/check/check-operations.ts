import type { ApsModel, Operation, Parameter, TypeRef } from "../model/model.ts";
import { isBaseOperation } from "../model/base-operations.ts";
import { Codes } from "../diagnostics/codes.ts";
import type { DiagnosticSink } from "../diagnostics/diagnostic.ts";

const SEGMENT = /^[a-zA-Z][0-9a-zA-Z_]*$/;
const PARAM_SEGMENT = /^\{([a-zA-Z_][a-zA-Z0-9_]*)\}$/;
const PARAMETER_PRIMITIVES = new Set(["string", "integer", "long", "number", "boolean"]);

/**
 * Rules on each operation a declaration writes (docs/aps/rest-api.md, custom operations): path syntax and path parameters,
 * parameter kinds and types, responses. Rules that need the whole resolved type (routes,
 * Suspendable) live in check-routes.ts and check-suspendable.ts.
 */
export function checkOperations(model: ApsModel, sink: DiagnosticSink): void {
  for (const type of model.types.values()) {
    for (const op of type.decl.operations.values()) {
      const what = `operation "${op.name}"`;
      const inPath = checkPath(op, what, sink);
      checkParameters(op, what, inPath, sink);
      checkResponses(op, what, sink);
      if (!isBaseOperation(op, type, model)) checkDocumented(op, what, sink);
    }
  }
}

/** Splits a normalised path (`/` alone, or `/a/{b}`) into its segments. */
export function pathSegments(path: string): string[] {
  return path === "/" ? [] : path.slice(1).split("/");
}

/** Checks the segments of the path; returns the names of its `{param}` segments. */
function checkPath(op: Operation, what: string, sink: DiagnosticSink): Set<string> {
  const loc = op.attrLocs.path ?? op.loc;
  const inPath = new Set<string>();
  for (const seg of pathSegments(op.path)) {
    const param = PARAM_SEGMENT.exec(seg);
    if (param) inPath.add(param[1]!);
    else if (seg === "")
      sink.report(
        Codes.operationPathInvalid,
        loc,
        `${what}: path "${op.path}" has an empty segment; remove the doubled or trailing "/".`,
      );
    else if (!SEGMENT.test(seg)) {
      sink.report(
        Codes.operationPathInvalid,
        loc,
        `${what}: path segment "${seg}" must be a word matching [a-zA-Z][0-9a-zA-Z_]* or a parameter such as {id}; rename it (query arguments are declared as parameters of kind "query", not written into the path).`,
      );
    }
  }
  const declared = new Map(op.parameters.map((p) => [p.name, p]));
  for (const name of inPath) {
    const p = declared.get(name);
    if (p?.kind === "path") continue;
    sink.report(
      Codes.pathParamUndeclared,
      loc,
      p
        ? `${what}: path parameter {${name}} is declared with kind "${p.kind}"; make it "kind": "path".`
        : `${what}: path parameter {${name}} is not declared; add "${name}": {"kind": "path", "type": "string", "required": true} to "parameters".`,
    );
  }
  return inPath;
}

function checkParameters(op: Operation, what: string, inPath: ReadonlySet<string>, sink: DiagnosticSink): void {
  let firstBody: Parameter | undefined;
  for (const p of op.parameters) {
    const pWhat = `${what} parameter "${p.name}"`;
    if (p.kind === "path" && !inPath.has(p.name)) {
      sink.report(
        Codes.pathParamUnused,
        p.loc,
        `${pWhat} has kind "path", but the path "${op.path}" has no {${p.name}}; add it to the path or make it a "query" parameter.`,
      );
    }
    if (p.kind === "body") {
      if (firstBody)
        sink.report(
          Codes.multipleBodyParameters,
          p.loc,
          `${pWhat} is a second body parameter (the first is "${firstBody.name}"); a request has one body, so combine them into one structure.`,
        );
      else firstBody = p;
    }
    const contentTypeLoc = p.attrLocs.contentType ?? p.loc;
    if (p.redundantContentType !== undefined) {
      sink.report(
        Codes.jsonContentTypeWithType,
        contentTypeLoc,
        `${pWhat} declares "contentType": "${p.redundantContentType}" beside "type"; "type" already means a JSON value, so the content type is redundant: drop it.`,
      );
    }
    if (p.type && p.contentType !== undefined) {
      sink.report(
        Codes.contentTypeWithType,
        contentTypeLoc,
        `${pWhat} declares both "type" and "contentType"; "type" means a JSON value and "contentType" another format, so keep one.`,
      );
    } else if (p.contentType !== undefined && p.kind !== "body") {
      sink.report(
        Codes.contentTypeNotBody,
        contentTypeLoc,
        `${pWhat}: "contentType" is allowed only on parameters of kind "body"; a ${p.kind} parameter is a primitive, so give it a "type" instead.`,
      );
    }
    if (p.kind !== "body" && p.type && !isParameterPrimitive(p.type)) {
      sink.report(
        Codes.parameterNotPrimitive,
        p.attrLocs.type ?? p.loc,
        `${pWhat}: a ${p.kind} parameter can only be string, integer, long, number or boolean, not "${p.typeText}"; send structured data in a parameter of kind "body".`,
      );
    }
    if (!p.type && (p.kind !== "body" || p.contentType === undefined)) {
      sink.report(
        Codes.parameterTypeMissing,
        p.loc,
        p.kind === "body"
          ? `${pWhat} declares neither "type" nor "contentType", so its body is passed on unchecked; add a structure "type" or a "contentType".`
          : `${pWhat} declares no "type", so its value is passed as a string; add "type": "string" (or integer, long, number, boolean).`,
      );
    }
  }
}

/**
 * A path or query value travels in the URL, so it must be a primitive. An unknown name has
 * already been reported as such; an external type id is certainly not a primitive.
 */
function isParameterPrimitive(ref: TypeRef): boolean {
  if (ref.kind === "opaque") return !ref.ref.includes("://");
  return ref.kind === "primitive" && PARAMETER_PRIMITIVES.has(ref.name);
}

function checkResponses(op: Operation, what: string, sink: DiagnosticSink): void {
  if (op.response?.redundantContentType !== undefined) {
    sink.report(
      Codes.jsonContentTypeWithType,
      op.response.loc,
      `${what}: response declares "contentType": "${op.response.redundantContentType}" beside "type"; "type" already means a JSON value, so it is read as the type alone: drop the content type (in PHP, write @return(T) without it).`,
    );
  }
  if (op.response?.type && op.response.contentType !== undefined) {
    sink.report(
      Codes.contentTypeWithType,
      op.response.loc,
      `${what}: response declares both "type" and the non-JSON "contentType": "${op.response.contentType}"; "type" means a JSON response and "contentType" another format, so keep one.`,
    );
  }
  if (op.errorResponse?.contentType !== undefined) {
    sink.report(
      Codes.errorResponseContentType,
      op.errorResponse.loc,
      `${what}: errorResponse cannot declare "contentType": errors are JSON, so describe them with a "type" such as a structure with code, error and message.`,
    );
  }
}

/** APS092/093: a custom operation should say what it returns, on success and on failure. */
function checkDocumented(op: Operation, what: string, sink: DiagnosticSink): void {
  if (!op.response) {
    sink.report(
      Codes.responseMissing,
      op.loc,
      `${what} declares no "response", so callers and generated clients cannot know what it returns; add one, e.g. "response": {"type": "object"} or {"contentType": "text/csv"}.`,
    );
  }
  if (!op.errorResponse) {
    sink.report(
      Codes.errorResponseMissing,
      op.loc,
      `${what} declares no "errorResponse", so its error body is untyped; add one, e.g. "errorResponse": {"type": "ErrorInfo"} naming a structure with code, error and message.`,
    );
  }
}
