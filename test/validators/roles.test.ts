import { beforeAll, describe, expect, it } from "vitest";
import { userActor } from "../../runtime/common/actor.ts";
import type { TypeValidator } from "../../runtime/common/type-validator.ts";
import { admin, app, body, codes, owner, widgetValidators } from "./widgets.ts";

let widget: TypeValidator;
beforeAll(async () => {
  ({ widget } = await widgetValidators());
});

describe("required and null (docs/declarations.md: null semantics)", () => {
  it("requires required properties on create, also those with a default (a hint for clients, docs/aps/resources.md)", () => {
    expect(codes(widget.validateCreate({}, owner))).toEqual(["/name required", "/size required"]);
    expect(codes(widget.validateCreate({ name: "abc", size: "m" }, owner))).toEqual([]);
    // The default stays available to clients preparing a new widget.
    expect(widget.defaults).toEqual({ size: "m" });
  });

  it("treats null as 'no value': fine when optional, an error when required", () => {
    expect(codes(widget.validateCreate(body('"note": null, "count": null, "origin": null'), owner))).toEqual([]);
    expect(codes(widget.validateCreate(body('"size": null'), owner))).toEqual(["/size required"]);
    expect(codes(widget.validateUpdate({ name: null }, owner))).toEqual(["/name required"]);
  });

  it("requires nothing on update", () => {
    expect(codes(widget.validateUpdate({}, owner))).toEqual([]);
    expect(codes(widget.validateUpdate({ note: "x" }, owner))).toEqual([]);
  });

  it("rejects a body that is not an object", () => {
    for (const b of [null, [], "x", 1]) expect(codes(widget.validateCreate(b, owner))).toEqual([" type"]);
  });

  it("ignores the aps meta-section and undefined values", () => {
    expect(
      codes(widget.validateCreate({ aps: { type: "t" }, name: "abc", size: "m", note: undefined }, owner)),
    ).toEqual([]);
  });

  it("rejects unknown properties, with a path-safe pointer", () => {
    expect(codes(widget.validateCreate({ name: "abc", size: "m", "a/b~c": 1 }, owner))).toEqual(["/a~1b~0c unknown"]);
  });
});

describe("readonly, final and access by actor (docs/aps/resources.md)", () => {
  it("lets only the application set readonly properties", () => {
    expect(codes(widget.validateCreate(body('"serial": "s-1"'), owner))).toEqual(["/serial readonly"]);
    expect(codes(widget.validateCreate(body('"serial": "s-1"'), admin))).toEqual(["/serial readonly"]);
    expect(codes(widget.validateCreate(body('"serial": "s-1"'), app))).toEqual([]);
    expect(codes(widget.validateUpdate({ serial: "s-2" }, owner))).toEqual(["/serial readonly"]);
  });

  it("requires a required readonly property from the application only", () => {
    expect(codes(widget.validateCreate(body(), owner))).toEqual([]);
    expect(codes(widget.validateCreate(body(), app))).toEqual(["/serial required"]);
  });

  it("allows final properties on create and rejects them on update from users", () => {
    expect(codes(widget.validateCreate(body('"region": "eu"'), owner))).toEqual([]);
    expect(codes(widget.validateUpdate({ region: "eu" }, owner))).toEqual(["/region final"]);
    expect(codes(widget.validateUpdate({ region: "eu" }, app))).toEqual([]);
  });

  it("rejects a property whose access denies every role of the writer", () => {
    expect(codes(widget.validateCreate(body('"secret": "k"'), owner))).toEqual(["/secret access"]);
    expect(codes(widget.validateCreate(body('"secret": "k"'), admin))).toEqual([]);
    expect(codes(widget.validateCreate(body('"secret": "k"'), userActor(["owner", "admin"])))).toEqual([]);
    expect(codes(widget.validateCreate(body('"secret": "k", "serial": "s"'), app))).toEqual([]);
    // Default access is admin and owner: a referrer may write nothing but what is opened to it.
    const referrer = userActor(["referrer"]);
    expect(codes(widget.validateUpdate({ note: "x", shown: "y" }, referrer))).toEqual(["/note access"]);
    expect(codes(widget.validateUpdate({ shown: "y" }, userActor([])))).toEqual([]);
  });

  it("names the allowed roles in the message", () => {
    expect(widget.validateCreate(body('"secret": "k"'), owner)[0]!.message).toBe(
      "may not be written with the caller's roles; its access allows admin",
    );
  });
});

describe("relations", () => {
  it("accepts link references on create and checks their shape", () => {
    expect(
      codes(widget.validateCreate(body('"gadget": {"aps": {"id": "g1"}}, "parts": [{"aps": {"id": "p1"}}]'), owner)),
    ).toEqual([]);
    expect(
      codes(
        widget.validateCreate(
          body('"gadget": {"id": "g1"}, "parts": [{"aps": {"id": 1}}, {"aps": {"id": "p"}}]'),
          owner,
        ),
      ),
    ).toEqual(["/gadget type", "/parts/0 type"]);
    expect(codes(widget.validateCreate(body('"parts": {"aps": {"id": "p1"}}'), owner))).toEqual(["/parts type"]);
  });

  it("points configure bodies that change links at the link endpoints", () => {
    const [e] = widget.validateUpdate({ gadget: { aps: { id: "g1" } } }, owner);
    expect(e).toEqual({
      path: "/gadget",
      code: "unknown",
      message: "is a relation: change its links with POST or DELETE /aps/2/resources/{id}/gadget, not with configure",
    });
  });
});
