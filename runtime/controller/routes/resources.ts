/** `/aps/2/resources` (docs/aps/rest-api.md, "Collections"; docs/aps/lifecycle.md, "Base operations"). */
import { Hono, type Context } from "hono";
import type { ControllerEnv } from "../context.ts";
import { ControllerError } from "../support/errors.ts";
import { parseRequestJson, readJsonBody, sendJson, sendList } from "../support/http-json.ts";
import { withRangeHeader } from "../support/range-header.ts";
import { lazyBody, readBodyBytes } from "../support/request-body.ts";
import { tidyPath } from "../support/request-path.ts";
import type { CustomOperations } from "../operations/custom-operations.ts";
import { provisionsThrough, type RelationService } from "../relations/relation-service.ts";
import type { ReadViews } from "../resources/read-views.ts";
import type { ResourceService } from "../resources/resource-service.ts";
import type { WriteResult } from "../resources/write-result.ts";
import type { Suspension } from "../suspension/suspension.ts";
import { ResourceStatus } from "../../common/core-types.ts";
import { decidedByRead, resourceSubPath } from "./resource-sub-path.ts";

/** The features `/aps/2/resources/...` routes to. */
export interface ResourceFeatures {
  readonly resources: ResourceService;
  readonly relations: RelationService;
  /** The reads: on a replica that has replayed the caller's writes, when there is one (resources/read-views.ts). */
  readonly reads: ReadViews;
  readonly operations: CustomOperations;
  readonly suspension: Suspension;
}

/** The resource collection routes: one router for resources, their links, enable/disable and custom operations. */
export function resourceRoutes({
  resources: service,
  relations,
  reads,
  operations,
  suspension,
}: ResourceFeatures): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.get("/", async (c) => {
    const url = c.req.url;
    const q = url.indexOf("?");
    const query = withRangeHeader(q < 0 ? "" : url.slice(q + 1), c.req.header("range") ?? c.req.header("x-range"));
    const page = await reads.run((read) => read.resources.list(c.get("caller"), query));
    // 200 also for a part of the matches: Connect and FallBall take only 200 (docs/platform-forms.md §1.2, §1.3);
    // the total is in Content-Range, which dojo stores read (§1.7).
    return sendList(c, page.items, page.start, page.total);
  });
  // FallBall and the Connect extension configure with the target named by aps.id in the body (platform-forms §1.2, §1.3).
  app.put("/", async (c) => {
    const body = await readJsonBody(c);
    const id = (body as { aps?: { id?: unknown } } | null)?.aps?.id;
    if (typeof id !== "string" || !id)
      throw new ControllerError(
        400,
        "PUT /aps/2/resources names its target by aps.id in the body; it has none. Or PUT /aps/2/resources/<id>.",
      );
    return written(c, await relations.configure(c.get("caller"), id, body), 200);
  });
  app.post("/", async (c) => written(c, await service.provision(c.get("caller"), await readJsonBody(c)), 201));
  app.get("/:id", async (c) =>
    sendJson(c, await reads.run((read) => read.resources.retrieve(c.get("caller"), c.req.param("id")))),
  );
  // The body may be the resource as read, links and aps included (relations/relation-service.ts configure).
  app.put("/:id", async (c) =>
    written(c, await relations.configure(c.get("caller"), c.req.param("id"), await readJsonBody(c)), 200),
  );
  app.delete("/:id", async (c) => {
    const { accepted } = await service.unprovision(c.get("caller"), c.req.param("id"));
    return accepted
      ? sendJson(c, { status: ResourceStatus.unprovisioning }, 202, { "APS-Info": accepted.info })
      : c.body(null, 204);
  });
  // Below a resource: enable/disable, links, relations, else a custom operation (resource-sub-path.ts decides which).
  app.on(["GET", "POST", "PUT", "DELETE"], "/:id/*", async (c) => {
    const url = new URL(c.req.url);
    const id = c.req.param("id");
    const caller = c.get("caller");
    const method = c.req.method;
    // Repeated and trailing slashes go (request-path.ts); escapes are decoded by the operation router.
    const rest = tidyPath(url.pathname.slice(url.pathname.indexOf(`/${id}/`) + id.length + 1));
    const questions = (view: RelationService) => ({
      isRelationName: (name: string) => view.isRelationName(name),
      declares: (relation: string) => view.declares(id, relation),
    });
    if (method === "GET") {
      if (decidedByRead(method, rest, relations)) {
        // A relation's listing takes RQL and Range as /aps/2/resources does (SpamExperts context.php:975, emails-view.js:214).
        const query = withRangeHeader(url.search.slice(1), c.req.header("range") ?? c.req.header("x-range"));
        // aps/links and a relation's listing are reads: decided and answered in one read, on the database `reads` chooses.
        const list = await reads.run(async (read) => {
          const to = await resourceSubPath(method, rest, questions(read.relations));
          if (to.to === "links") return read.relations.allLinks(caller, id);
          if (to.to === "related") return read.relations.related(caller, id, to.relation, query);
          return undefined;
        });
        if (list) return sendList(c, list.items, list.start, list.total);
      }
    } else {
      // Writes, on the primary.
      const to = await resourceSubPath(method, rest, questions(relations));
      if (to.to === "suspension") return sendJson(c, await suspension.suspend(caller, id, to.disable));
      if (to.to === "link") {
        const body = await requestJson(c);
        return provisionsThrough(body)
          ? sendJson(c, await relations.provisionThrough(caller, id, to.relation, body), 201)
          : sendJson(c, await relations.link(caller, id, to.relation, body));
      }
      if (to.to === "unlink") {
        await relations.unlink(caller, id, to.relation, to.other);
        return c.body(null, 204);
      }
    }
    // The body is read only where it is used: an unknown operation is answered without it.
    const reply = await operations.onResource(caller, id, method, rest, url.search.slice(1), lazyBody(c));
    const type = reply.headers["content-type"];
    return new Response(reply.status === 204 ? null : new Uint8Array(reply.body), {
      status: reply.status,
      headers: typeof type === "string" ? { "content-type": type } : {},
    });
  });
  return app;
}

/** A link's body: JSON when one came (an empty body or another content type is none). */
async function requestJson(c: Context<ControllerEnv>): Promise<unknown> {
  const bytes = await readBodyBytes(c);
  return bytes.length && /json/i.test(c.req.header("content-type") ?? "application/json")
    ? parseRequestJson(bytes.toString("utf8"))
    : undefined;
}

/** 202 with the resource in progress when the application took the write for later (docs/aps/lifecycle.md, "Asynchronous operations"). */
function written(c: Parameters<typeof sendJson>[0], result: WriteResult, status: number): Response {
  return result.accepted
    ? sendJson(c, result.resource, 202, { "APS-Info": result.accepted.info })
    : sendJson(c, result.resource, status);
}
