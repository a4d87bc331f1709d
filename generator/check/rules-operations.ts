import { CoreTypeIds, type ApsModel, type Operation, type ResolvedType, type TypeRef } from "../model/model.ts";
import { Codes } from "./codes.ts";
import type { DiagnosticSink } from "./diagnostic.ts";

const SEGMENT = /^[a-zA-Z][0-9a-zA-Z_]*$/;
const PARAM_SEGMENT = /^\{([a-zA-Z_][a-zA-Z0-9_]*)\}$/;
const PARAMETER_PRIMITIVES = new Set(["string", "integer", "long", "number", "boolean"]);
/** Types whose operations are the platform's own base operations, not custom ones. */
const BASE_TYPES = new Set<string>([CoreTypeIds.resource, CoreTypeIds.suspendable, CoreTypeIds.application]);

/** Checks operations (SPEC 4.4, 4.5): path syntax, routes, parameters, responses, Suspendable. */
export function checkOperations(model: ApsModel, sink: DiagnosticSink): void {
  // The bundled core types are the platform's own declarations, written as documented.
  const bundled = new Set(model.packages.filter((p) => p.bundled).flatMap((p) => p.typeIds));
  for (const type of model.types.values()) {
    for (const op of type.decl.operations.values()) checkOperation(op, type, bundled.has(type.id), sink);
    checkRoutes(type, sink);
    if (type.isSuspendable) checkSuspendable(type, sink);
  }
}

function checkOperation(op: Operation, type: ResolvedType, bundled: boolean, sink: DiagnosticSink): void {
  const what = `operation "${op.name}"`;
  const pathLoc = op.attrLocs["path"] ?? op.loc;
  const segments = op.path === "/" ? [] : op.path.slice(1).split("/");
  const inPath = new Set<string>();
  for (const seg of segments) {
    const param = PARAM_SEGMENT.exec(seg);
    if (param) inPath.add(param[1]!);
    else if (!SEGMENT.test(seg)) {
      sink.report(
        Codes.operationPathInvalid,
        pathLoc,
        seg === ""
          ? `${what}: path "${op.path}" has an empty segment; remove the doubled or trailing "/".`
          : `${what}: path segment "${seg}" must match [a-zA-Z][0-9a-zA-Z_]* or be a {parameter}.`,
      );
    }
  }
  const first = segments[0];
  if (!op.static && first !== undefined && type.relations.has(first)) {
    sink.report(Codes.pathEqualsRelation, pathLoc, `${what}: path "${op.path}" starts with "${first}", a relation of "${type.name}"; /aps/2/resources/<id>/${first} already lists its links, so rename the path.`);
  }

  const declaredPath = new Set(op.parameters.filter((p) => p.kind === "path").map((p) => p.name));
  for (const name of inPath) {
    if (!declaredPath.has(name)) sink.report(Codes.pathParamUndeclared, pathLoc, `${what}: path parameter {${name}} is not declared; add "${name}": {"kind": "path", "type": "string", "required": true} to "parameters".`);
  }
  let bodies = 0;
  for (const p of op.parameters) {
    const pWhat = `${what}, parameter "${p.name}"`;
    if (p.kind === "path" && !inPath.has(p.name)) sink.report(Codes.pathParamUnused, p.loc, `${pWhat} has kind "path" but the path "${op.path}" has no {${p.name}}; add it to the path or make it a query parameter.`);
    if (p.kind === "body" && ++bodies === 2) sink.report(Codes.multipleBodyParameters, p.loc, `${pWhat}: an operation has at most one body parameter; combine them into one structure.`);
    if (p.type && p.contentType !== undefined) {
      sink.report(Codes.contentTypeWithType, p.attrLocs["contentType"] ?? p.loc, `${pWhat}: "type" and "contentType" cannot be used together; "type" means JSON, "contentType" declares another format. Keep one.`);
    } else if (p.contentType !== undefined && p.kind !== "body") {
      sink.report(Codes.contentTypeNotBody, p.attrLocs["contentType"] ?? p.loc, `${pWhat}: "contentType" is only for kind "body"; ${p.kind} parameters are primitives.`);
    }
    if (p.kind !== "body" && p.type && !isParameterPrimitive(p.type)) {
      sink.report(Codes.parameterNotPrimitive, p.attrLocs["type"] ?? p.loc, `${pWhat}: ${p.kind} parameters support only string, integer, long, number and boolean, not "${p.typeText}"; pass structured data in a body parameter.`);
    }
    if (!p.type && (p.kind !== "body" || p.contentType === undefined)) {
      sink.report(Codes.parameterTypeMissing, p.loc, p.kind === "body" ? `${pWhat} declares neither "type" nor "contentType"; its body is passed on unchecked.` : `${pWhat} declares no "type"; its value is passed as a string. Add "type": "string" (or integer, long, number, boolean).`);
    }
  }

  for (const [attr, response] of [["response", op.response], ["errorResponse", op.errorResponse]] as const) {
    if (!response) continue;
    if (response.type && response.contentType !== undefined) {
      sink.report(Codes.contentTypeWithType, response.loc, `${what}: ${attr} declares both "type" and "contentType"; "type" means JSON, "contentType" another format. Keep one.`);
    } else if (attr === "errorResponse" && response.contentType !== undefined) {
      sink.report(Codes.errorResponseContentType, response.loc, `${what}: errorResponse cannot declare "contentType"; errors are JSON, give a "type".`);
    }
  }
  if (!bundled && !BASE_TYPES.has(op.declaredIn)) {
    if (!op.response) sink.report(Codes.responseMissing, op.loc, `${what} declares no "response"; callers and generated clients cannot know what it returns (use {"type": "object"} or {"contentType": "..."}).`);
    if (!op.errorResponse) sink.report(Codes.errorResponseMissing, op.loc, `${what} declares no "errorResponse"; the error body is untyped.`);
  }
}

function isParameterPrimitive(ref: TypeRef): boolean {
  return ref.kind === "primitive" && PARAMETER_PRIMITIVES.has(ref.name);
}

/** No two operations of a type may share verb and path (params compared by position only). */
function checkRoutes(type: ResolvedType, sink: DiagnosticSink): void {
  const routes = new Map<string, Operation>();
  for (const op of type.operations.values()) {
    const key = `${op.static ? "static " : ""}${op.verb} ${op.path.replace(/\{[^}]*\}/g, "{}")}`;
    const earlier = routes.get(key);
    if (!earlier) {
      routes.set(key, op);
      continue;
    }
    // Report at the operation this type wrote; a clash between two inherited operations
    // (from different parents) is reported at the type, which has to resolve it.
    const own = op.declaredIn === type.id ? op : earlier.declaredIn === type.id ? earlier : undefined;
    if (!own && op.declaredIn === earlier.declaredIn) continue;
    const other = own === op ? earlier : op;
    sink.report(
      Codes.duplicateOperationRoute,
      own?.loc ?? type.decl.loc,
      `operation "${(own ?? op).name}" uses ${op.verb} ${op.path}${op.static ? " (static)" : ""}, like operation "${other.name}"${other.declaredIn !== type.id ? ` inherited from ${other.declaredIn}` : ""}; give it another path or verb.`,
    );
  }
}

/** SPEC 4.5: enable and disable stay PUT /enable and PUT /disable, callable by admins only. */
function checkSuspendable(type: ResolvedType, sink: DiagnosticSink): void {
  for (const name of ["enable", "disable"]) {
    const op = type.decl.operations.get(name);
    if (!op || op.declaredIn !== type.id) continue;
    const problems: string[] = [];
    if (op.verb !== "PUT" || op.path !== `/${name}`) problems.push(`must be PUT /${name} (found ${op.verb} ${op.path})`);
    const granted = (["owner", "referrer", "public"] as const).filter((r) => op.access?.[r] === true);
    if (granted.length) problems.push(`is admin only, but access grants ${granted.join(", ")}`);
    if (op.access && op.access.admin === false) problems.push("must stay open to admin");
    if (problems.length) sink.report(Codes.suspendableOperationChanged, op.loc, `"${type.name}" implements Suspendable, so ${name} ${problems.join(" and ")} (SPEC 4.5).`);
  }
}

