import { href } from "../routes.ts";

/** A type id the controller does not know (a stale link, or a package removed since). */
export default function MissingType({ typeId }: { typeId: string }) {
  return (
    <>
      <h1>No such type</h1>
      <p>
        The controller knows no type <code>{typeId}</code>. <a href={href.types()}>See the types it knows</a>.
      </p>
    </>
  );
}
